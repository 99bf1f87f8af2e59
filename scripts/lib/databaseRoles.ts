/**
 * The PostgreSQL roles of the stack, made by a login that may create roles and databases (the
 * embedded cluster's superuser; docker/postgres/10-roles.sh does the same in compose):
 * - `gateway_owner`, the migration role: owns the gateway's database and every object in it, so
 *   migrations (and only they) create, alter and drop tables;
 * - `gateway_app`, the runtime role of the API, the worker and the CLI: reads and writes the
 *   gateway's rows (SELECT, INSERT, UPDATE, DELETE; its sequences), creates nothing, drops
 *   nothing. Default privileges grant it the tables and sequences later migrations create;
 * - `temporal`: owns Temporal's databases.
 * None is a superuser, creates databases or roles. Each database refuses PUBLIC: only its owner
 * (and the gateway's runtime role, on the gateway's database) may connect, so the gateway's
 * logins cannot reach Temporal's databases, nor Temporal's the gateway's.
 * The passwords are derived from the admin login's password (HMAC): every script, test and the
 * CLI find the same ones on the same cluster without storing them, and runs that set them at
 * the same time set the same values.
 */
import crypto from 'node:crypto';
import { Client as PgClient } from 'pg';

export const DATABASE_ROLES = {
  /** Owns the gateway's schema objects; migrations run as it (MIGRATION_DATABASE_URL). */
  migration: 'gateway_owner',
  /** The API's, the worker's and the CLI's login (DATABASE_URL): rows only. */
  runtime: 'gateway_app',
  /** Owns Temporal's databases (history and visibility). */
  temporal: 'temporal',
} as const;
export type DatabaseRole = (typeof DATABASE_ROLES)[keyof typeof DATABASE_ROLES];

/** The role's password on the cluster `adminUrl` reaches: an HMAC of the admin password, so never stored. */
export function rolePassword(adminUrl: string, role: DatabaseRole): string {
  const admin = decodeURIComponent(new URL(adminUrl).password);
  return crypto.createHmac('sha256', admin).update(`pix-gateway database role ${role} v1`).digest('hex');
}

/** `adminUrl` with the role's login, on `database` (default: the admin URL's). */
export function roleUrl(adminUrl: string, role: DatabaseRole, database?: string): string {
  const url = new URL(adminUrl);
  url.username = role;
  url.password = rolePassword(adminUrl, role);
  if (database !== undefined) url.pathname = `/${database}`;
  return url.toString();
}

/**
 * The gateway's database `database`, owned by the migration role, with the runtime role granted
 * its rows (and those of later migrations); made if missing, brought to this shape if it exists
 * (a database from before the roles: its objects change owner). Returns both logins' URLs.
 */
export async function ensureGatewayDatabase(
  adminUrl: string,
  database: string,
): Promise<{ runtimeUrl: string; migrationUrl: string }> {
  const { migration, runtime } = DATABASE_ROLES;
  await withClient(adminUrl, 'postgres', async (admin) => {
    await ensureRole(admin, migration, rolePassword(adminUrl, migration));
    await ensureRole(admin, runtime, rolePassword(adminUrl, runtime));
    await ensureOwnedDatabase(admin, database, migration);
    await admin.query(`GRANT CONNECT ON DATABASE ${ident(database)} TO ${runtime}`);
  });
  await withClient(adminUrl, database, async (db) => {
    await adoptObjects(db, migration);
    await db.query(`REVOKE CREATE ON SCHEMA public FROM PUBLIC`);
    await db.query(`GRANT USAGE ON SCHEMA public TO ${runtime}`);
    // What migrations create from now on (the grants follow the creator, the migration role)...
    await db.query(
      `ALTER DEFAULT PRIVILEGES FOR ROLE ${migration} IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO ${runtime}`,
    );
    await db.query(
      `ALTER DEFAULT PRIVILEGES FOR ROLE ${migration} IN SCHEMA public GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO ${runtime}`,
    );
    // ...and what is there already.
    await db.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${runtime}`);
    await db.query(`GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO ${runtime}`);
  });
  return { runtimeUrl: roleUrl(adminUrl, runtime, database), migrationUrl: roleUrl(adminUrl, migration, database) };
}

/** Temporal's databases, owned by the `temporal` role and closed to every other login. Returns its login. */
export async function ensureTemporalDatabases(
  adminUrl: string,
  databases: string[],
): Promise<{ user: string; password: string }> {
  const { temporal } = DATABASE_ROLES;
  const password = rolePassword(adminUrl, temporal);
  await withClient(adminUrl, 'postgres', async (admin) => {
    await ensureRole(admin, temporal, password);
    for (const database of databases) await ensureOwnedDatabase(admin, database, temporal);
  });
  for (const database of databases) await withClient(adminUrl, database, (db) => adoptObjects(db, temporal));
  return { user: temporal, password };
}

async function withClient<T>(adminUrl: string, database: string, work: (client: PgClient) => Promise<T>): Promise<T> {
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  const client = new PgClient({ connectionString: url.toString() });
  await client.connect();
  try {
    // One setup at a time per database: two runs' GRANTs on one row would fail ("tuple concurrently updated").
    await client.query('SELECT pg_advisory_lock(727002)');
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A login role with no power beyond what is granted to it; its password set (again) each time. */
async function ensureRole(admin: PgClient, role: DatabaseRole, password: string): Promise<void> {
  try {
    await admin.query(`CREATE ROLE ${role}`);
  } catch (err) {
    // 42710: it exists (made by an earlier start, or by a run beside this one just now).
    if ((err as { code?: string }).code !== '42710') throw err;
  }
  // PASSWORD takes no bind parameter; the value is hex (rolePassword), so a literal is safe.
  await admin.query(
    `ALTER ROLE ${role} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS NOINHERIT PASSWORD '${password}'`,
  );
}

/** The database, made if missing, owned by `owner`, and closed to PUBLIC (no CONNECT, no TEMPORARY). */
async function ensureOwnedDatabase(admin: PgClient, database: string, owner: DatabaseRole): Promise<void> {
  const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
  if (exists.rowCount === 0) {
    try {
      await admin.query(`CREATE DATABASE ${ident(database)} OWNER ${owner}`);
    } catch (err) {
      // 42P04: made by a run beside this one just now.
      if ((err as { code?: string }).code !== '42P04') throw err;
    }
  }
  await admin.query(`ALTER DATABASE ${ident(database)} OWNER TO ${owner}`);
  await admin.query(`REVOKE ALL ON DATABASE ${ident(database)} FROM PUBLIC`);
}

/**
 * Every object of the public schema changes owner to `owner`: a database made before the roles
 * (tables the superuser created) then takes migrations under the migration role. Sequences
 * owned by a column and triggers follow their table.
 */
async function adoptObjects(db: PgClient, owner: DatabaseRole): Promise<void> {
  await db.query(`
    DO $$
    DECLARE r record;
    BEGIN
      FOR r IN
        SELECT c.oid::regclass AS name,
               CASE c.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'S' THEN 'SEQUENCE'
                              WHEN 'f' THEN 'FOREIGN TABLE' WHEN 'c' THEN 'TYPE' ELSE 'TABLE' END AS kind
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f', 'c')
          AND c.relowner <> '${owner}'::regrole
          AND NOT (c.relkind = 'S' AND EXISTS (
            SELECT 1 FROM pg_depend d
            WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('a', 'i')))
      LOOP
        EXECUTE format('ALTER %s %s OWNER TO ${owner}', r.kind, r.name);
      END LOOP;
      FOR r IN
        SELECT p.oid::regprocedure AS name,
               CASE p.prokind WHEN 'p' THEN 'PROCEDURE' WHEN 'a' THEN 'AGGREGATE' ELSE 'FUNCTION' END AS kind
        FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname = 'public' AND p.proowner <> '${owner}'::regrole
      LOOP
        EXECUTE format('ALTER %s %s OWNER TO ${owner}', r.kind, r.name);
      END LOOP;
      FOR r IN
        SELECT t.oid::regtype AS name, CASE t.typtype WHEN 'd' THEN 'DOMAIN' ELSE 'TYPE' END AS kind
        FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
        WHERE n.nspname = 'public' AND t.typtype IN ('e', 'd') AND t.typowner <> '${owner}'::regrole
      LOOP
        EXECUTE format('ALTER %s %s OWNER TO ${owner}', r.kind, r.name);
      END LOOP;
    END $$`);
}

/** A database name as an SQL identifier (names here are the scripts' own, never user input). */
function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

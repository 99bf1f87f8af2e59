/**
 * The PostgreSQL roles of the cluster `npm test` builds, made as `npm start` makes them
 * (scripts/lib/database.ts, scripts/lib/databaseRoles.ts): the runtime login of the API, the
 * worker and the CLI is no superuser, reads and writes the gateway's rows, creates and drops
 * nothing, is granted the tables later migrations create, and cannot connect to Temporal's
 * databases; migrations ran under the migration role, which owns every object. DATABASE_URL here
 * is the run's admin login (the integration stacks make their databases with it).
 */
import crypto from 'node:crypto';
import { Client as PgClient } from 'pg';
import { runMigrations } from '../../db/migrator';
import { createSequelize } from '../../db/sequelize';
import {
  DATABASE_ROLES,
  ensureGatewayDatabase,
  ensureTemporalDatabases,
  roleUrl,
} from '../../scripts/lib/databaseRoles';
import { testEnv } from '../support/env';

jest.setTimeout(60_000);

const env = testEnv();
const run = new URL(env.databaseUrl).pathname.slice(1);

async function connect(url: string): Promise<PgClient> {
  const client = new PgClient({ connectionString: url });
  await client.connect();
  return client;
}

/** The SQLSTATE a statement (or a connection) fails with; null when it succeeds. */
async function failure(work: () => Promise<unknown>): Promise<string | null> {
  try {
    await work();
    return null;
  } catch (err) {
    return (err as { code?: string }).code ?? String(err);
  }
}

async function withRole<T>(
  role: (typeof DATABASE_ROLES)[keyof typeof DATABASE_ROLES],
  database: string,
  work: (c: PgClient) => Promise<T>,
) {
  const client = await connect(roleUrl(env.databaseUrl, role, database));
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

describe("the gateway's runtime role (DATABASE_URL of the API and the worker)", () => {
  it('is no superuser, and may not create roles or databases, replicate or bypass row security', async () => {
    const { rows } = await withRole(DATABASE_ROLES.runtime, run, (c) =>
      c.query(
        `SELECT current_user AS who, rolsuper, rolcreatedb, rolcreaterole, rolreplication, rolbypassrls,
                current_setting('is_superuser') AS is_superuser
         FROM pg_roles WHERE rolname = current_user`,
      ),
    );
    expect(rows).toEqual([
      {
        who: 'gateway_app',
        rolsuper: false,
        rolcreatedb: false,
        rolcreaterole: false,
        rolreplication: false,
        rolbypassrls: false,
        is_superuser: 'off',
      },
    ]);
  });

  it("reads and writes the gateway's rows, and finds the migrations applied without needing to apply one", async () => {
    await withRole(DATABASE_ROLES.runtime, run, async (c) => {
      await c.query('BEGIN');
      try {
        const id = crypto.randomUUID();
        await c.query(`INSERT INTO merchants (id, name, created_at, updated_at) VALUES ($1, 'Roles', now(), now())`, [
          id,
        ]);
        await c.query(`UPDATE merchants SET name = 'Roles 2' WHERE id = $1`, [id]);
        const { rows } = await c.query(`SELECT name FROM merchants WHERE id = $1`, [id]);
        expect(rows).toEqual([{ name: 'Roles 2' }]);
        expect((await c.query(`DELETE FROM merchants WHERE id = $1`, [id])).rowCount).toBe(1);
        // A BIGSERIAL table: its sequence is granted too.
        await c.query(`SELECT nextval(pg_get_serial_sequence('ledger_accounts', 'id'))`);
      } finally {
        await c.query('ROLLBACK');
      }
    });
    // What the API and the worker do at start with this login: a check that nothing is pending.
    const sequelize = createSequelize(roleUrl(env.databaseUrl, DATABASE_ROLES.runtime, run), { poolMax: 2 });
    try {
      await expect(runMigrations(sequelize)).resolves.toEqual([]);
    } finally {
      await sequelize.close();
    }
  });

  it('creates, alters, truncates and drops nothing (42501: insufficient privilege)', async () => {
    await withRole(DATABASE_ROLES.runtime, run, async (c) => {
      expect(await failure(() => c.query('CREATE TABLE roles_probe (id INT)'))).toBe('42501');
      expect(await failure(() => c.query('CREATE TEMP TABLE roles_probe (id INT)'))).toBe('42501');
      expect(await failure(() => c.query('ALTER TABLE merchants ADD COLUMN roles_probe INT'))).toBe('42501');
      expect(await failure(() => c.query('TRUNCATE merchants CASCADE'))).toBe('42501');
      expect(await failure(() => c.query('DROP TABLE merchants CASCADE'))).toBe('42501');
      expect(
        await failure(() => c.query('CREATE FUNCTION roles_probe() RETURNS int AS $$ SELECT 1 $$ LANGUAGE sql')),
      ).toBe('42501');
    });
  });

  it('cannot connect to Temporal’s databases, nor Temporal’s login to the gateway’s', async () => {
    // Made as scripts/lib/temporalServer.ts makes them (named after the run, so dropped with it).
    const history = `${run}_roles_t`;
    await ensureTemporalDatabases(env.databaseUrl, [history, `${history}_visibility`]);
    for (const database of [history, `${history}_visibility`]) {
      for (const role of [DATABASE_ROLES.runtime, DATABASE_ROLES.migration])
        expect({ role, database, code: await failure(() => withRole(role, database, async () => undefined)) }).toEqual({
          role,
          database,
          code: '42501',
        });
      expect(await failure(() => withRole(DATABASE_ROLES.temporal, database, (c) => c.query('SELECT 1')))).toBeNull();
    }
    expect(await failure(() => withRole(DATABASE_ROLES.temporal, run, async () => undefined))).toBe('42501');
  });
});

describe('the migration role (MIGRATION_DATABASE_URL)', () => {
  it("owns every object of the gateway's database, and is no superuser either", async () => {
    const { rows } = await withRole(DATABASE_ROLES.migration, run, (c) =>
      c.query(
        `SELECT (SELECT array_agg(DISTINCT tableowner::text) FROM pg_tables WHERE schemaname = 'public') AS owners,
                (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AS rolsuper`,
      ),
    );
    expect(rows).toEqual([{ owners: ['gateway_owner'], rolsuper: false }]);
  });

  it('grants the runtime role the tables and sequences a later migration creates (default privileges)', async () => {
    const database = `${run}_roles_g`;
    await ensureGatewayDatabase(env.databaseUrl, database);
    // An empty database: the runtime role (an API or a worker without MIGRATION_DATABASE_URL) is refused, saying what to run.
    const runtime = createSequelize(roleUrl(env.databaseUrl, DATABASE_ROLES.runtime, database), { poolMax: 2 });
    try {
      await expect(runMigrations(runtime)).rejects.toThrow(
        /migration\(s\) pending .* run them under the migration role first/,
      );
    } finally {
      await runtime.close();
    }
    await withRole(DATABASE_ROLES.migration, database, (c) =>
      c.query('CREATE TABLE later_migration (id BIGSERIAL PRIMARY KEY, note TEXT NOT NULL)'),
    );
    await withRole(DATABASE_ROLES.runtime, database, async (c) => {
      await c.query(`INSERT INTO later_migration (note) VALUES ('granted')`);
      expect((await c.query('SELECT note FROM later_migration')).rows).toEqual([{ note: 'granted' }]);
      expect(await failure(() => c.query('DROP TABLE later_migration'))).toBe('42501');
    });
  });
});

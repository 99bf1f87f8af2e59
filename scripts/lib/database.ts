/**
 * DATABASE_URL when given; otherwise the project-local embedded PostgreSQL, with the gateway's
 * database owned by the migration role and its runtime role granted the rows only
 * (scripts/lib/databaseRoles.ts).
 */
import path from 'node:path';
import { ensureDatabase, startLocalPostgres, type LocalPostgres } from '../../db/embeddedPostgres';
import { ensureGatewayDatabase } from './databaseRoles';
import { projectRoot } from '../../cli/lib/projectRoot';

export interface PreparedDatabase {
  /** The runtime role's URL: what the API, the worker and the CLI get as DATABASE_URL. */
  url: string;
  /** The migration role's URL (MIGRATION_DATABASE_URL): migrations run with it. */
  migrationUrl: string;
  /**
   * On the same database, a login that may create databases and roles (the embedded cluster's
   * superuser): for Temporal's databases and the test runs' copies, never for a service.
   */
  adminUrl: string;
  embedded: boolean;
  /** The embedded cluster's postmaster (absent with DATABASE_URL): to supervise and restart it. */
  postgres?: LocalPostgres;
  stop: () => Promise<void>;
}

export async function prepareDatabase(opts: {
  database: string;
  dataDir: string;
  port: number;
  log?: (l: string) => void;
  /** Use the embedded cluster even when DATABASE_URL is set (a stack of its own, as the chaos run's). */
  embedded?: boolean;
}): Promise<PreparedDatabase> {
  if (process.env.DATABASE_URL && !opts.embedded) {
    // A server of the operator's: its roles are theirs to make (docs/operations.md). One login
    // does everything unless MIGRATION_DATABASE_URL names the migration role's.
    const server = new URL(process.env.DATABASE_URL);
    const target = new URL(process.env.DATABASE_URL);
    // In the test run each run gets its own database on the given server.
    if (opts.database !== server.pathname.slice(1)) {
      server.pathname = '/postgres';
      await ensureDatabase(server.toString(), opts.database);
      target.pathname = `/${opts.database}`;
    }
    const url = target.toString();
    return {
      url,
      migrationUrl: process.env.MIGRATION_DATABASE_URL || url,
      adminUrl: url,
      embedded: false,
      stop: async () => undefined,
    };
  }
  const pg = await startLocalPostgres({
    dataDir: path.resolve(projectRoot, opts.dataDir),
    port: opts.port,
    log: opts.log,
  });
  const adminUrl = pg.url(opts.database);
  const { runtimeUrl, migrationUrl } = await ensureGatewayDatabase(adminUrl, opts.database);
  return { url: runtimeUrl, migrationUrl, adminUrl, embedded: true, postgres: pg, stop: pg.stop };
}

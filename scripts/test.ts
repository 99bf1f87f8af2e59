/**
 * `npm test`: the whole suite against real infrastructure, nothing installed by hand.
 *   Temporal tooling (.tools/: the CLI, the Java test server, the production Temporal server and
 *   its Web UI) → the tests' other one-time installs (Debian's poppler, zbar and Chromium, the
 *   schemathesis and moto virtualenvs: scripts/lib/testTools.ts), beside what follows and done
 *   before jest starts, so that no timed test pays for an install →
 *   the production build (`npm run build` plus production dependencies only, outside the checkout:
 *   scripts/lib/productionBuild.ts), made beside all that follows → PostgreSQL (embedded unless
 *   DATABASE_URL) with a fresh database for this run, migrated once under the migration role, and a template copy of it for
 *   the integration stacks → Temporal dev server (headless, in memory) → jest, its four projects in one
 *   pool of workers (jest.config.js; the smoke set starts its own production Temporal server on the
 *   run's PostgreSQL and the built processes), with the type-check, lint and format check running
 *   beside it → the slowest files, the time and CPU per file and project (scripts/lib/testTimings.ts),
 *   then the secrets audit → the whole run's CPU and the closing line.
 * Extra arguments go to jest (`npm test -- test/unit`). Exits non-zero on any failure.
 * GATEWAY_TEST_WORKERS sets jest's worker count (default 4: the suite mostly waits on I/O).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client as PgClient } from 'pg';
import { runMigrations } from '../db/migrator';
import { createSequelize } from '../db/sequelize';
import { prepareDatabase } from './lib/database';
import { auditSecrets } from './lib/secretsAudit';
import { freePort } from './lib/ports';
import { startTemporalDevServer } from './lib/temporalDevServer';
import { cpuSecondsOfThisRun, jestCpu, timingReport } from './lib/testTimings';
import { failureLines } from './lib/testFailures';
import { ensureTools, temporalCliPath, temporalTestServerPath } from './lib/tools';
import { projectRoot } from '../cli/lib/projectRoot';
import { DEFAULT_PRODUCTION_BUILD_DIR, prepareProductionBuild } from './lib/productionBuild';
import { ensureTestTools, toolsFor } from './lib/testTools';

/** Jest workers: integration files mostly wait (polls, timers, the provider), so more than the cores. */
const DEFAULT_WORKERS = 4;

function step(msg: string): void {
  process.stdout.write(`[test] ${msg}\n`);
}

async function main(): Promise<number> {
  const started = Date.now();
  step('checking Temporal tooling (.tools/)...');
  ensureTools('cli', 'test-server', 'server', 'ui');
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-test-'));

  // SKIP_TYPECHECK=1 is for a developer iterating on one file while others edit the tree; CI never sets it.
  const checks = process.env.SKIP_TYPECHECK === '1' ? [] : startStaticChecks(logDir);
  if (checks.length === 0) step('type-check, lint and format check skipped (SKIP_TYPECHECK=1)');
  else step('type-check (tsc --noEmit), lint (eslint) and format check (prettier) started beside the tests');

  // Built beside everything else: jest starts at once, and the smoke set, which runs the built
  // processes, waits for this file to say the build is ready (test/support/builtStack.ts).
  step('building for production (npm run build, production dependencies only) beside the tests...');
  const buildReady = path.join(logDir, 'production-build.json');
  const build = prepareProductionBuild({ dir: DEFAULT_PRODUCTION_BUILD_DIR }).then(
    (built) => {
      fs.writeFileSync(buildReady, JSON.stringify({ ok: true, dir: built.dir }));
      step(
        `production build ready in ${built.dir} (${(built.timings.totalMs / 1000).toFixed(1)} s${built.modulesCached ? ', dependencies reused' : ''})`,
      );
      return true;
    },
    (err: unknown) => {
      const message = err instanceof Error ? err.message : String(err);
      fs.writeFileSync(buildReady, JSON.stringify({ ok: false, error: message }));
      step(`production build FAILED: ${message}`);
      return false;
    },
  );

  // The other one-time installs (apt-get, pip), beside the build and PostgreSQL, finished before
  // jest starts: a first run on a new machine must not spend a test's timed budget installing.
  const tools = toolsFor(process.argv.slice(2));
  const toolsReady = tools.length
    ? ensureTestTools(tools, path.join(logDir, 'test-tools.log'))
    : Promise.resolve({ ok: true, results: [] });
  if (tools.length) step(`checking the tests' other tools beside it (${tools.map((t) => t.name).join(', ')})...`);

  const database = `gw_test_${Date.now()}_${process.pid}`;
  const template = `${database}_template`;
  const pgPort = await freePort();
  step(
    process.env.DATABASE_URL
      ? 'using DATABASE_URL for a fresh test database'
      : `starting embedded PostgreSQL on 127.0.0.1:${pgPort}...`,
  );
  // A second concurrent run (another terminal) gets its own cluster instead of fighting over the lock.
  const sharedDir = path.join(projectRoot, '.data', 'test-postgres');
  const dataDir = clusterInUse(sharedDir) ? path.join(projectRoot, '.data', `test-postgres-${process.pid}`) : sharedDir;
  const db = await prepareDatabase({ database, dataDir, port: pgPort });
  const temporalPort = await freePort();
  let temporal: Awaited<ReturnType<typeof startTemporalDevServer>> | undefined;
  let outcome: { summary: ReturnType<typeof readSummary>; jestCpu: number | undefined; code: number };
  try {
    // Under the migration role, as `npm start` migrates (scripts/lib/databaseRoles.ts).
    const sequelize = createSequelize(db.migrationUrl, { poolMax: 2 });
    await runMigrations(sequelize);
    await sequelize.close();
    // The integration stacks copy this (CREATE DATABASE … TEMPLATE) instead of migrating each.
    await createTemplate(db.adminUrl, template, database);

    step(`starting Temporal dev server on 127.0.0.1:${temporalPort}...`);
    temporal = await startTemporalDevServer({ port: temporalPort, logFile: path.join(logDir, 'temporal.log') });

    const installed = await toolsReady;
    for (const r of installed.results)
      if (r.error) step(`${r.name} could not be installed (the tests that need it will fail):\n${r.error.trim()}`);
    if (tools.length)
      step(`tests' tools ready (${installed.results.map((r) => `${r.name} ${r.seconds.toFixed(1)} s`).join(', ')})`);

    const resultsFile = path.join(logDir, 'jest-results.json');
    const workers = process.env.GATEWAY_TEST_WORKERS ?? String(DEFAULT_WORKERS);
    step(
      `infrastructure ready in ${((Date.now() - started) / 1000).toFixed(1)} s; running jest with ${workers} workers...`,
    );
    // jest under withCpu.js, which writes the CPU of jest and every process under it once it exits.
    const jestCpuFile = path.join(logDir, 'jest-cpu.json');
    const jestStatus = await runJest(
      [
        path.join(__dirname, 'lib', 'withCpu.js'),
        jestCpuFile,
        process.execPath,
        require.resolve('jest/bin/jest'),
        '--json',
        `--outputFile=${resultsFile}`,
        `--maxWorkers=${workers}`,
        ...(process.stdout.isTTY ? ['--colors'] : []),
        ...process.argv.slice(2),
      ],
      {
        ...process.env,
        NODE_ENV: 'test',
        // The admin login (on the embedded cluster): the stacks make their databases with it;
        // test/integration/databaseRoles.test.ts checks the roles npm start's services use.
        DATABASE_URL: db.adminUrl,
        GATEWAY_TEST_TEMPLATE_DATABASE: template,
        TEMPORAL_ADDRESS: temporal.address,
        TEMPORAL_CLI_PATH: temporalCliPath,
        TEMPORAL_TEST_SERVER_PATH: temporalTestServerPath,
        GATEWAY_PRODUCTION_BUILD_DIR: DEFAULT_PRODUCTION_BUILD_DIR,
        GATEWAY_PRODUCTION_BUILD_READY: buildReady,
        // Every process of the stack logs here, not into the test output (core/logger.ts, test/support/testLogs.ts).
        GATEWAY_TEST_LOG_DIR: logDir,
      },
      path.join(logDir, 'jest-output.log'),
    );
    const summary = readSummary(resultsFile);
    if (!(await build)) summary.failed += 1;
    const report = timingReport(resultsFile, projectRoot, { cpuDir: path.join(logDir, 'test-cpu'), jestCpuFile });
    if (report) process.stdout.write(`${report}\n`);

    for (const check of checks) {
      const result = await check.done;
      if (result.code === 0) continue;
      process.stdout.write(result.output);
      step(`${check.name} FAILED`);
      summary.failed += 1;
    }
    if (checks.length) step(`type-check, lint and format: ${checks.every((c) => c.passed) ? 'clean' : 'see above'}`);

    // After the suite: no secret issued during it may appear in any captured log line.
    const audit = auditSecrets(logDir);
    if (audit.leaks.length > 0) {
      for (const leak of audit.leaks.slice(0, 20))
        step(`SECRET LEAKED: a ${leak.kind} value (${leak.prefix}…) in ${leak.file}:${leak.line}`);
      if (audit.leaks.length > 20) step(`… and ${audit.leaks.length - 20} more`);
      step(
        `secrets audit FAILED: ${audit.leaks.length} leak(s) of ${audit.secrets} secrets in ${audit.files} log files`,
      );
      summary.failed += 1;
    } else {
      step(`secrets audit: ${audit.secrets} secrets issued, none in ${audit.files} log files`);
    }
    // Every request the gateway sent to the PSP during the suite, checked against the BCB document
    // (API Pix) or docs/standards/efi-pix.yaml (Efí's send, balance and MED routes): test/support/pixApiAudit.ts.
    const violationsFile = path.join(logDir, 'pix-api-violations.log');
    const violations = fs.existsSync(violationsFile)
      ? fs.readFileSync(violationsFile, 'utf8').split('\n').filter(Boolean)
      : [];
    if (violations.length > 0) {
      for (const line of violations.slice(0, 20)) step(`API PIX REQUEST VIOLATION: ${line}`);
      step(`PSP request audit FAILED: ${violations.length} violation(s) of the BCB document or efi-pix.yaml`);
      summary.failed += 1;
    } else {
      step(
        'PSP request audit: every request the gateway sent follows the BCB document (API Pix) or efi-pix.yaml (Efí)',
      );
    }
    const failures = failureLines(resultsFile, projectRoot);
    for (const line of failures) step(`FAILED: ${line}`);
    step(`logs of this run: ${logDir}`);
    outcome = {
      summary,
      jestCpu: jestCpu(jestCpuFile)?.cpuSeconds,
      code: summary.passed + summary.failed > 0 && jestStatus === 0 && summary.failed === 0 ? 0 : 1,
    };
  } finally {
    for (const check of checks) check.child.kill('SIGTERM');
    await temporal?.stop();
    await dropDatabase(db.adminUrl, database).catch(() => undefined);
    await db.stop();
    if (dataDir !== sharedDir) fs.rmSync(dataDir, { recursive: true, force: true });
  }
  // Every process of the run has exited and been reaped by now: its CPU is all in this one's figures.
  const runCpu = cpuSecondsOfThisRun(path.join(logDir, 'shared-stacks-cpu.json'));
  if (runCpu !== undefined)
    step(
      `CPU of the whole run: ${runCpu.toFixed(0)} s${outcome.jestCpu === undefined ? '' : ` (jest and its processes ${outcome.jestCpu.toFixed(0)} s; the rest is the tools, the build, the checks, PostgreSQL and Temporal)`}`,
    );
  step(`finished in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  // The plain closing line CI reads, whatever the runner.
  const { summary } = outcome;
  process.stdout.write(`${summary.passed} passed, ${summary.failed} failed, ${summary.skipped} skipped\n`);
  return outcome.code;
}

interface StaticCheck {
  name: string;
  child: import('node:child_process').ChildProcess;
  done: Promise<{ code: number; output: string }>;
  passed: boolean;
}

/** tsc, eslint and prettier as child processes beside jest; their output is shown only when they fail. */
function startStaticChecks(logDir: string): StaticCheck[] {
  // eslint's package exports hide bin/; its main module (lib/api.js) sits beside it.
  const eslintBin = path.join(path.dirname(require.resolve('eslint')), '..', 'bin', 'eslint.js');
  const commands: [string, string[]][] = [
    ['type-check (tsc --noEmit)', [require.resolve('typescript/bin/tsc'), '--noEmit', '-p', projectRoot]],
    [
      'lint (eslint, cached in node_modules/.cache/eslint)',
      [
        eslintBin,
        '--cache',
        '--cache-location',
        path.join(projectRoot, 'node_modules', '.cache', 'eslint') + path.sep,
        projectRoot,
      ],
    ],
    // The formatter's check: a file prettier would rewrite fails the run (`npx prettier --write .` fixes it).
    [
      'format (prettier --check)',
      [require.resolve('prettier/bin/prettier.cjs'), '--check', '--log-level', 'warn', projectRoot],
    ],
  ];
  return commands.map(([name, args]) => {
    const child = spawn(process.execPath, args, { cwd: projectRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout?.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.stderr?.on('data', (c: Buffer) => (output += c.toString('utf8')));
    const check: StaticCheck = {
      name,
      child,
      passed: false,
      done: new Promise((resolve) =>
        child.once('close', (code) => {
          fs.writeFileSync(path.join(logDir, `${name.split(' ')[0]}.log`), output);
          check.passed = code === 0;
          resolve({ code: code ?? 1, output });
        }),
      ),
    };
    return check;
  });
}

/** A copy of the migrated run database, never connected to, that CREATE DATABASE … TEMPLATE can copy. */
async function createTemplate(url: string, template: string, source: string): Promise<void> {
  const server = new URL(url);
  server.pathname = '/postgres';
  const client = new PgClient({ connectionString: server.toString() });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${template}" TEMPLATE "${source}"`);
  } finally {
    await client.end();
  }
}

/** Runs jest with its output shown and also kept in the log directory (the secrets audit scans it). */
function runJest(args: string[], env: NodeJS.ProcessEnv, outputFile: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const out = fs.createWriteStream(outputFile);
    const child = spawn(process.execPath, args, { cwd: projectRoot, env, stdio: ['inherit', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk: Buffer) => {
      process.stdout.write(chunk);
      out.write(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      process.stderr.write(chunk);
      out.write(chunk);
    });
    child.once('error', reject);
    child.once('close', (code) => out.end(() => resolve(code ?? 1)));
  });
}

function clusterInUse(dataDir: string): boolean {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return false;
  try {
    process.kill(Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]), 0);
    return true;
  } catch {
    return false;
  }
}

function readSummary(file: string): { passed: number; failed: number; skipped: number } {
  try {
    const r = JSON.parse(fs.readFileSync(file, 'utf8'));
    return {
      passed: r.numPassedTests,
      failed: r.numFailedTests + (r.numRuntimeErrorTestSuites ?? 0),
      skipped: r.numPendingTests + r.numTodoTests,
    };
  } catch {
    return { passed: 0, failed: 1, skipped: 0 };
  }
}

async function dropDatabase(url: string, database: string): Promise<void> {
  const server = new URL(url);
  server.pathname = '/postgres';
  const client = new PgClient({ connectionString: server.toString() });
  await client.connect();
  try {
    // This run's database and the per-stack databases the integration tests made from it.
    const { rows } = await client.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname = $1 OR datname LIKE $2`,
      [database, `${database}\\_%`],
    );
    for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`[test] failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);

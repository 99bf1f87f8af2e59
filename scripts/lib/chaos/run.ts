/**
 * One chaos run (`npm run chaos`, and a short one in `npm test`): the production stack
 * (TEMPORAL_ENGINE=server, the production build's processes, two workers, every process
 * supervised as `npm start` supervises it) in a folder and on ports of its own, a seeded mixed
 * load (./load.ts), and meanwhile the seeded faults of ./schedule.ts: SIGKILL to the API, each
 * worker, the sandbox, the Temporal server and PostgreSQL, and a worker paused past its heartbeat
 * timeout. Then the load stops, the stack is left to become quiet, the audit (cli/audit) runs
 * against its database, Temporal and provider, and the report is written (./report.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createSequelize } from '../../../db/sequelize';
import { seededRandom } from '../../../sandbox/seededRandom';
import { generateSecrets } from '../localSecrets';
import { freePort } from '../ports';
import { prepareProductionBuild, runBuiltCli } from '../productionBuild';
import { startStack, type Stack } from '../stack';
import { applyFault, PartWatch, sleep, type FaultResult } from './faults';
import { prepareLoad, startLoad, type LoadEvent, type LoadOptions, type LoadSummary } from './load';
import { faultSchedule } from './schedule';
import { auditStack, type StackAudit } from './stackAudit';
import { longestLag, signalledPayments, type SignalledPayment } from './settlementLag';
import { chaosReport, runProblems } from './report';

export interface ChaosOptions {
  seconds: number;
  seed: number;
  /** The run's folder: data/ (wiped at the start), logs/, the report. */
  dir: string;
  /** A production build made already (the test runner's); else one is made. */
  buildDir?: string;
  workers: number;
  /** Faults: gaps between them (after the part is back), the warm-up, the fault-free tail, a pause's length. */
  gapMs: { min: number; max: number };
  warmUpMs: number;
  tailMs: number;
  pauseMs: number;
  /** Rounds (every target once) that run even past the time budget. */
  minRounds: number;
  /** How long a killed part may take to come back before the report says it did not. */
  recoveryTimeoutMs: number;
  /** How long the stack may take to become quiet (the audit clean) after the load. */
  quietTimeoutMs: number;
  load: Partial<Pick<LoadOptions, 'ratePerSecond' | 'maxInFlight' | 'payoutItems' | 'payoutItemBudget'>>;
  /** Whether a fault's payments reaching the ledger beyond the bound fails the run (report.ts SETTLEMENT_BOUND_MS). */
  settlementBounded: boolean;
  log: (line: string) => void;
}

export interface ChaosResult {
  clean: boolean;
  report: string;
  reportFile: string;
}

export async function runChaos(opts: ChaosOptions): Promise<ChaosResult> {
  const startedAt = new Date();
  opts.log(`seed ${opts.seed} (replay with CHAOS_SEED=${opts.seed}), ${opts.seconds} s of load`);
  const dataDir = path.join(opts.dir, 'data');
  const logDir = path.join(opts.dir, 'logs');
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.rmSync(logDir, { recursive: true, force: true });
  fs.mkdirSync(logDir, { recursive: true });
  const buildDir = opts.buildDir ?? (await prepareProductionBuild()).dir;
  const watch = new PartWatch();
  const supervisorLines: string[] = [];
  const stackLog = fs.openSync(path.join(logDir, 'stack.log'), 'a');
  const write = (fd: number, line: string) => fs.writeSync(fd, `${new Date().toISOString()} ${line}\n`);
  const stack = await startStack({
    dataDir,
    engine: 'server',
    ports: await freePorts(),
    temporalUiHost: '127.0.0.1',
    services: { from: 'build', buildDir },
    workers: opts.workers,
    secrets: generateSecrets(),
    database: 'gateway',
    embeddedDatabase: true,
    log: (line) => {
      supervisorLines.push(`${new Date().toISOString()} ${line}`);
      write(stackLog, `[stack] ${line}`);
    },
    output: (service, _stream, line) => write(stackLog, `[${service}] ${line}`),
    workerHealth: true,
    onStarted: (part, child) => watch.started(part, child.pid ?? -1),
  });
  opts.log(`stack up: API ${stack.apiUrl}, Temporal ${stack.temporal.address}, Web UI ${stack.temporal.uiUrl}`);
  try {
    return await driveAndAudit(opts, stack, buildDir, watch, supervisorLines, startedAt);
  } finally {
    await stack.stop();
    fs.closeSync(stackLog);
  }
}

async function driveAndAudit(
  opts: ChaosOptions,
  stack: Stack,
  buildDir: string,
  watch: PartWatch,
  supervisorLines: string[],
  startedAt: Date,
): Promise<ChaosResult> {
  const events: LoadEvent[] = [];
  const eventLog = fs.openSync(path.join(opts.dir, 'logs', 'load.jsonl'), 'a');
  const loadOptions: LoadOptions = {
    // Its own stream of the seed: the load's draws do not shift the fault schedule's.
    random: seededRandom(opts.seed ^ 0x5bd1e995),
    receiverHost: '127.0.0.1',
    ...opts.load,
    log: (event) => {
      events.push(event);
      fs.writeSync(eventLog, `${JSON.stringify(event)}\n`);
    },
  };
  const target = {
    apiUrl: stack.apiUrl,
    sandboxUrl: stack.sandboxUrl,
    fetch: globalThis.fetch,
    cli: (args: string[]) => runBuiltCli(buildDir, { ...process.env, ...stack.env }, args),
  };
  const fixture = await prepareLoad(target, loadOptions);
  const load = startLoad(fixture, loadOptions);
  const loadStart = Date.now();
  opts.log('load started');
  const faults = await runFaults(opts, stack, watch, loadStart);
  await sleep(Math.max(0, loadStart + opts.seconds * 1000 - Date.now()));
  opts.log('load stopping (in-flight requests finish their retries)');
  const stopAt = Date.now();
  const summary: LoadSummary = await load.stop();
  const loadEnd = Date.now();
  try {
    opts.log('waiting for the stack to become quiet, then the audit');
    const audit = await untilQuiet(stack, buildDir, startedAt, opts);
    const sequelize = createSequelize(stack.env.DATABASE_URL, { poolMax: 1 });
    let payments: SignalledPayment[];
    try {
      payments = await signalledPayments(sequelize, startedAt);
    } finally {
      await sequelize.close();
    }
    const report = chaosReport({
      opts,
      startedAt,
      loadMs: stopAt - loadStart,
      drainMs: loadEnd - stopAt,
      quietMs: Date.now() - loadEnd,
      faults,
      events,
      summary,
      payments,
      longestLag: longestLag(payments),
      restarts: Object.fromEntries([...stack.parts.keys()].map((p) => [p, watch.restarts(p)])),
      supervisorLines,
      audit,
      machine: { cores: os.cpus().length, loadAverage: os.loadavg() },
    });
    const reportFile = writeReport(opts, report);
    const clean = runProblems({ opts, audit, faults, summary, payments }).length === 0;
    return { clean, report, reportFile };
  } finally {
    fs.closeSync(eventLog);
    await summary.close();
  }
}

async function runFaults(
  opts: ChaosOptions,
  stack: Stack,
  watch: PartWatch,
  loadStart: number,
): Promise<FaultResult[]> {
  const workers = [...stack.parts.keys()].filter((p) => p.startsWith('worker'));
  const schedule = faultSchedule({
    random: seededRandom(opts.seed),
    killTargets: ['api', ...workers, 'sandbox', 'temporal', 'postgres'],
    pauseTargets: workers,
    // More than can fit: the run ends them by its time budget, after minRounds.
    rounds: Math.max(opts.minRounds, 50),
    gapMs: opts.gapMs,
    warmUpMs: opts.warmUpMs,
    pauseMs: opts.pauseMs,
  });
  // Every kill target once, and one pause.
  const perRound = workers.length + 5;
  const budgetEnd = loadStart + opts.seconds * 1000 - opts.tailMs;
  const results: FaultResult[] = [];
  for (const fault of schedule) {
    const inMinRounds = fault.n <= opts.minRounds * perRound;
    if (!inMinRounds && Date.now() + fault.gapMs > budgetEnd) break;
    await sleep(fault.gapMs);
    opts.log(
      `fault ${fault.n}: ${fault.action === 'kill' ? 'SIGKILL' : `SIGSTOP for ${fault.pauseMs} ms`} → ${fault.target}`,
    );
    const result = await applyFault(fault, { stack, watch, timeoutMs: opts.recoveryTimeoutMs });
    opts.log(
      `fault ${fault.n}: ${fault.target} ${result.problem ?? `back, /ready after ${((result.readyMs ?? 0) / 1000).toFixed(1)} s`}`,
    );
    results.push(result);
  }
  return results;
}

/** Audits until clean (the stack has finished what the load left in flight) or the quiet wait ends. */
async function untilQuiet(stack: Stack, buildDir: string, since: Date, opts: ChaosOptions): Promise<StackAudit> {
  const deadline = Date.now() + opts.quietTimeoutMs;
  for (;;) {
    const audit = await auditStack(stack, buildDir, since);
    if (audit.clean || Date.now() > deadline) return audit;
    const open = audit.report?.checks.reduce((n, c) => n + c.discrepancies.length, 0);
    opts.log(
      `not quiet yet (${open ?? 'the audit could not run'}${open === undefined ? '' : ' discrepancies'}); auditing again in 15 s`,
    );
    await sleep(15_000);
  }
}

function writeReport(opts: ChaosOptions, report: string): string {
  const runs = path.join(opts.dir, 'runs');
  fs.mkdirSync(runs, { recursive: true });
  const file = path.join(runs, `${new Date().toISOString().replace(/[:.]/g, '-')}-seed-${opts.seed}.md`);
  fs.writeFileSync(file, report);
  fs.writeFileSync(path.join(opts.dir, 'latest.md'), report);
  return file;
}

async function freePorts() {
  return {
    api: await freePort(),
    sandbox: await freePort(),
    temporal: await freePort(),
    temporalUi: await freePort(),
    postgres: await freePort(),
    mail: await freePort(),
  };
}

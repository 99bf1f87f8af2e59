/**
 * The webhook part's FLOOR (issue 40), measured in the same run, by the same ramp and judge as
 * ours (scripts/lib/loadRamp.ts): the least a signalled workflow that writes can cost on this
 * Temporal and this PostgreSQL. Each event is one benchFloorWorkflow (scripts/lib/benchWorkflows)
 * started and signalled at once by the load generator (signalWithStart through the bench's
 * Temporal client, at `rate`, as atRate sends our payments), which runs ONE local activity that
 * INSERTs one row into the bench-only table bench_floor_marks (scripts/lib/floorActivities.ts),
 * then completes. Latency per event: the signalWithStart sent → the row written (its `at`,
 * clock_timestamp() in the INSERT's own autocommit; the workflow's completion comes after and is
 * not waited for). Its worker is a process of its own (scripts/lib/floorWorker.ts, under tsx, a
 * task queue of its own, told to the watchdog), so CPU per signal is temporal + postgres + the
 * floor worker over the step, as ours is api + worker + temporal + postgres.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import type { Client } from '@temporalio/client';
import { QueryTypes, type Sequelize } from 'sequelize';
import { percentile } from './benchTable';
import { failureKind, LoadErrors, REQUEST_TIMEOUT_MS } from './loadFetch';
import { atRate, countAt, DRAIN_MS, judge, ramp, RATES, type RampStep } from './loadRamp';
import { cpuDeltaMs, cpuSnapshot, perOp, type ProcessGroups } from './processCpu';
import { stopChild } from './stopChild';
import { CREATE_FLOOR_TABLE, FLOOR_TABLE } from './floorActivities';
import { floorMark } from './benchWorkflows';
import { projectRoot } from '../../cli/lib/projectRoot';

export interface FloorBenchDeps {
  temporal: Client;
  /** What the floor worker connects to: the engine's address and its clients' TEMPORAL_TLS_* (none on the dev server). */
  temporalAddress: string;
  temporalClientEnv: Record<string, string>;
  /** Where the floor's rows go (the bench's database; the migration role's, which owns what it creates). */
  databaseUrl: string;
  sequelize: Sequelize;
  /** temporal and postgres: the floor worker's group is added here. */
  cpuGroups: ProcessGroups;
  /** Tells the watchdog a pid (scripts/lib/benchWatchdog.ts). */
  watch: (child: ChildProcess) => void;
  logFile: string;
  line: (k: string, v: string) => void;
  waitUntil: (probe: () => Promise<boolean>, timeoutMs: number, what: string) => Promise<void>;
}

/** The groups that count for the floor: what a signalled workflow costs, the load generator left out. */
const FLOOR = ['temporal', 'postgres', 'floor worker'];

export async function benchFloor(d: FloorBenchDeps): Promise<{ steps: RampStep[]; knee: number }> {
  await d.sequelize.query(CREATE_FLOOR_TABLE);
  const taskQueue = `bench-floor-${crypto.randomUUID()}`;
  fs.mkdirSync(path.dirname(d.logFile), { recursive: true });
  const worker = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'floorWorker.ts')], {
    cwd: projectRoot,
    stdio: ['ignore', 'pipe', fs.openSync(d.logFile, 'a')],
    env: {
      ...process.env,
      ...d.temporalClientEnv,
      DATABASE_URL: d.databaseUrl,
      TEMPORAL_ADDRESS: d.temporalAddress,
      TEMPORAL_TASK_QUEUE: taskQueue,
    },
  });
  d.watch(worker);
  let gone: string | undefined;
  let ready = false;
  // Its output, read until the line that says it polls (a line may come in two chunks).
  let output = '';
  worker.stdout!.on('data', (chunk: Buffer) => {
    if (ready) return;
    output += chunk.toString('utf8');
    ready = output.includes('floor worker ready');
  });
  worker.once('exit', (code, signal) => {
    gone = `the floor worker exited (${signal ? `signal ${signal}` : `code ${code}`}); see ${d.logFile}`;
  });
  const alive = (probe: () => Promise<boolean>) => async () => {
    if (gone) throw new Error(gone);
    return probe();
  };
  try {
    await d.waitUntil(
      alive(async () => ready),
      120_000,
      'the floor worker to poll its task queue',
    );
    process.stdout.write(`\nfloor worker: pid ${worker.pid}, log ${d.logFile}\n`);
    // Warm-up, as the create part's: first-use costs (the workflow sandbox, connections) are not the steady state.
    await warmUp(d, taskQueue, alive);
    const groups: ProcessGroups = {
      ...d.cpuGroups,
      'floor worker': () => (worker.pid ? [worker.pid] : []),
    };
    return await ramp(RATES, (rate) => floorStep(d, { rate, asked: countAt(rate), taskQueue, groups, alive }));
  } finally {
    await stopChild(worker);
  }
}

/** Signals one at a time, each waited for its row (a few seconds at most). */
async function warmUp(
  d: FloorBenchDeps,
  taskQueue: string,
  alive: (probe: () => Promise<boolean>) => () => Promise<boolean>,
): Promise<void> {
  for (let i = 0; i < 5; i++) {
    const id = `${taskQueue}-warm-${i}`;
    await d.temporal.workflow.signalWithStart('benchFloorWorkflow', {
      workflowId: id,
      taskQueue,
      args: [id],
      signal: floorMark,
      signalArgs: [],
    });
    const written = async () =>
      (
        await d.sequelize.query(`SELECT 1 FROM ${FLOOR_TABLE} WHERE id = :id`, {
          replacements: { id },
          type: QueryTypes.SELECT,
        })
      ).length > 0;
    await d.waitUntil(alive(written), 30_000, 'the floor warm-up');
  }
}

async function floorStep(
  d: FloorBenchDeps,
  run: {
    rate: number;
    asked: number;
    taskQueue: string;
    groups: ProcessGroups;
    alive: (probe: () => Promise<boolean>) => () => Promise<boolean>;
  },
): Promise<RampStep> {
  const { rate, asked, taskQueue } = run;
  const prefix = `${taskQueue}-${rate}-`;
  const sentAt = new Map<string, number>();
  const errors = new LoadErrors();
  const firstSentAt = Date.now();
  const cpuBefore = cpuSnapshot(run.groups);
  const offered = await atRate(rate, asked, async (i) => {
    const id = `${prefix}${i}`;
    const at = Date.now();
    try {
      // The request's deadline, as the load generator's HTTP requests have (loadFetch).
      await d.temporal.connection.withDeadline(Date.now() + REQUEST_TIMEOUT_MS, () =>
        d.temporal.workflow.signalWithStart('benchFloorWorkflow', {
          workflowId: id,
          taskQueue,
          args: [id],
          signal: floorMark,
          signalArgs: [],
        }),
      );
      sentAt.set(id, at);
    } catch (err) {
      errors.count(failureKind(err));
    }
  });
  const lastSentAt = Date.now();
  const written = async () =>
    (
      await d.sequelize.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${FLOOR_TABLE} WHERE id LIKE :p`, {
        replacements: { p: `${prefix}%` },
        type: QueryTypes.SELECT,
      })
    )[0].n;
  await d
    .waitUntil(
      run.alive(async () => (await written()) >= sentAt.size),
      DRAIN_MS,
      'every floor row to be written',
    )
    .catch((err: Error) => {
      if (!err.message.startsWith('timed out')) throw err;
    });
  const cpu = cpuDeltaMs(cpuBefore, cpuSnapshot(run.groups));
  const rows = await d.sequelize.query<{ id: string; at: number }>(
    `SELECT id, extract(epoch FROM at) * 1000 AS at FROM ${FLOOR_TABLE} WHERE id LIKE :p`,
    { replacements: { p: `${prefix}%` }, type: QueryTypes.SELECT },
  );
  const rowAt = new Map(rows.map((r) => [r.id, Number(r.at)]));
  const delays: number[] = [];
  for (const [id, at] of sentAt) delays.push((rowAt.get(id) ?? Math.max(lastSentAt, at) + DRAIN_MS) - at);
  const delivered = [...sentAt.keys()].filter((id) => rowAt.has(id)).length;
  const lastRowAt = Math.max(firstSentAt, ...rowAt.values());
  const deliveredPerS = delivered / Math.max(0.001, (lastRowAt - firstSentAt) / 1000);
  const cpuMs = FLOOR.reduce((a, group) => a + (cpu[group] ?? 0), 0) / Math.max(1, delivered);
  const step = judge({
    rate,
    asked,
    sent: sentAt.size,
    delivered,
    offered,
    deliveredPerS,
    p50: percentile(delays, 50),
    p99: percentile(delays, 99),
    cpuMs,
    errors: errors.total,
  });
  process.stdout.write(
    `\nwebhook floor (${sentAt.size} signalWithStart at ${rate}/s: signal sent → its workflow's one row written)\n`,
  );
  d.line('median', `${step.p50.toFixed(1)} ms`);
  d.line('p99', `${step.p99.toFixed(1)} ms`);
  d.line('max', `${delays.length ? Math.max(...delays).toFixed(1) : NaN} ms`);
  if (delivered < sentAt.size)
    d.line(
      'fell behind',
      `${sentAt.size - delivered} of ${sentAt.size} not written ${DRAIN_MS / 1000} s after the last signal`,
    );
  d.line('rows written per second', `${deliveredPerS.toFixed(1)} (signals sent at ${rate}/s)`);
  d.line('CPU per signal (ms)', perOp(cpu, Math.max(1, delivered)));
  d.line('  the floor (temporal, postgres, floor worker)', `${cpuMs.toFixed(1)} ms`);
  d.line('signals offered per second', `${offered.toFixed(1)} of ${rate}`);
  d.line('load errors', errors.summary());
  d.line('step', step.held ? 'HOLDS' : `does not hold: ${step.why}`);
  return step;
}

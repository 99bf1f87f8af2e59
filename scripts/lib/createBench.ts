/**
 * The charge-create part of `npm run bench` (BENCH_ONLY=creates): POST /sellers/pix through the
 * real API (client credentials), BENCH_CREATES (320) at concurrency 32 and BENCH_CREATES_SERIAL
 * (50) one at a time, beside baseline (b): a no-op Update-With-Start workflow on the same
 * Temporal at the same concurrency, the floor of a charge create. The no-op worker runs in this
 * process (it bundles scripts/lib/benchWorkflows, never the gateway's workflows) on its own task
 * queue. The API runs in its own process: its peak RSS under the load is that process's VmHWM,
 * reset just before the concurrent creates (as the payout part does for the worker). CPU per
 * create: each process group's CPU time (scripts/lib/processCpu.ts) over the concurrent phase,
 * divided by the creates, and the same over the baseline's concurrent phase, where the no-op
 * worker runs in this process (the "bench" group, with the load generator and the sandbox).
 * A create that fails — a timeout, a reset, a 5xx, any answer but 201 — is counted by kind
 * (scripts/lib/loadFetch.ts) and shown, never thrown; so is a baseline update that fails.
 */
import crypto from 'node:crypto';
import { Client, WithStartWorkflowOperation, type TLSConfig } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type { Sequelize } from 'sequelize';
import { createMerchantWithCredential } from '../../db/identity/merchantAdmin';
import { percentile, timed, type BenchTable } from './benchTable';
import { failureKind, LoadErrors, loadFetch } from './loadFetch';
import { cpuDeltaMs, cpuSnapshot, perOp, type ProcessGroups } from './processCpu';
import { peakRssMib, resetPeakRss } from './processMemory';
import { noopUpdate } from './benchWorkflows';
import { credentialHeaders } from './credentialHeaders';

const CREATES = Number(process.env.BENCH_CREATES ?? 320);
const SERIAL = Number(process.env.BENCH_CREATES_SERIAL ?? 50);
const CONCURRENCY = 32;

export interface CreateBenchDeps {
  apiUrl: string;
  /** The API process: its VmHWM is the API's peak RSS. */
  apiPid: number;
  /** Process groups whose CPU time is shown per create (api, worker, temporal, postgres, bench). */
  cpuGroups: ProcessGroups;
  temporalAddress: string;
  /** The production engine's client certificate (undefined: the dev server, plain TCP). */
  temporalTls?: TLSConfig;
  temporal: Client;
  sequelize: Sequelize;
  encryptionKey: string;
  table: BenchTable;
  line: (k: string, v: string) => void;
}

export async function benchCreates(d: CreateBenchDeps): Promise<void> {
  const creds = await createMerchantWithCredential(d.sequelize, { name: 'Bench Cobranças' }, d.encryptionKey);
  const headers = credentialHeaders(creds);
  const loadErrors = new LoadErrors();
  const create = async (i: number) => {
    const res = await loadFetch(loadErrors, `${d.apiUrl}/sellers/pix`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ amountCents: 1_000 + i }),
    });
    // A 5xx is counted by loadFetch; any other answer but 201 here.
    if (res && res.status !== 201 && res.status < 500) loadErrors.count(`answered ${res.status}`);
  };
  await timed(4, 1, create); // warm-up: first-use costs (connections, JIT) are not the steady state
  const warmUpErrors = loadErrors.total;

  resetPeakRss(d.apiPid);
  const cpuBefore = cpuSnapshot(d.cpuGroups);
  const concurrent = await timed(CREATES, CONCURRENCY, create);
  const concurrentErrors = loadErrors.total - warmUpErrors;
  const cpu = cpuDeltaMs(cpuBefore, cpuSnapshot(d.cpuGroups));
  const peakRss = peakRssMib(d.apiPid);
  const serial = await timed(SERIAL, 1, create);

  const base = await noopBaseline(d);

  process.stdout.write(
    `\ncharge create (POST /sellers/pix: ${CREATES} at concurrency ${CONCURRENCY}, ${SERIAL} one at a time; baseline: no-op Update-With-Start)\n`,
  );
  const errors = loadErrors.total;
  // Failed creates are timed too (a timeout takes its deadline): the rate counts the ones that
  // succeeded, so a failing API never looks fast.
  const ok = (r: { durations: number[]; wallMs: number }, failed: number) =>
    Math.max(0, r.durations.length - failed) / (r.wallMs / 1000);
  const oursRate = ok(concurrent, concurrentErrors);
  const baseRate = ok(base.concurrent, base.concurrentErrors);
  d.line(
    'concurrent',
    `${oursRate.toFixed(1)} creates/s, p99 ${percentile(concurrent.durations, 99).toFixed(1)} ms, ${concurrentErrors} errors`,
  );
  d.line('load errors', `${loadErrors.summary()}${warmUpErrors ? ` (${warmUpErrors} in the warm-up)` : ''}`);
  d.line('baseline errors', base.errors.summary());
  d.line('one at a time', `p50 ${percentile(serial.durations, 50).toFixed(1)} ms`);
  d.line('baseline concurrent', `${baseRate.toFixed(1)} updates/s`);
  d.line('baseline one at a time', `p50 ${percentile(base.serial.durations, 50).toFixed(1)} ms`);
  d.line('CPU per create (ms), concurrent', perOp(cpu, CREATES));
  d.line('baseline CPU per update (ms)', perOp(base.cpu, CREATES));
  d.line('API process peak RSS', `${Math.round(peakRss)} MiB (VmHWM over the concurrent creates)`);

  const note = [
    errors ? `load errors: ${loadErrors.summary()}` : '',
    base.errors.total ? `baseline errors: ${base.errors.summary()}` : '',
  ]
    .filter(Boolean)
    .join('; ');
  d.table.add({
    name: `charge create c=${CONCURRENCY} (creates/s)`,
    ours: oursRate,
    baseline: baseRate,
    goal: '≥ 0.8 × baseline (b), no error',
    met: baseRate > 0 && oursRate / baseRate >= 0.8 && errors === 0 && base.errors.total === 0,
    errors: errors + base.errors.total,
    note,
  });
  const p50 = percentile(serial.durations, 50);
  d.table.add({
    name: 'charge create one at a time p50 (ms)',
    ours: p50,
    baseline: percentile(base.serial.durations, 50),
    goal: '< 120 ms',
    met: p50 < 120 && errors === 0,
    errors,
    note: errors ? `load errors: ${loadErrors.summary()}` : '',
  });
  d.table.add({
    name: 'API peak RSS under create load (MiB)',
    ours: peakRss,
    baseline: null,
    goal: '< 200 MiB',
    met: peakRss < 200,
  });
}

/** Baseline (b): the same counts and concurrency against benchNoopWorkflow. */
async function noopBaseline(d: CreateBenchDeps) {
  const taskQueue = `bench-noop-${crypto.randomUUID()}`;
  // Errors only: the SDK's default logs every state change, the bundler's output and a warning
  // that this worker has no activities (none needed) to stdout,
  // burying the figures. Process-wide, and refused once a runtime exists, hence the catch.
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // Already installed: keep it.
  }
  const connection = await NativeConnection.connect({ address: d.temporalAddress, tls: d.temporalTls });
  const worker = await Worker.create({ connection, taskQueue, workflowsPath: require.resolve('./benchWorkflows') });
  const errors = new LoadErrors();
  // Counted, not thrown, as our creates' failures are (a gRPC error by its name or code).
  const run = (i: number) =>
    d.temporal.workflow
      .executeUpdateWithStart(noopUpdate, {
        startWorkflowOperation: new WithStartWorkflowOperation('benchNoopWorkflow', {
          workflowId: `${taskQueue}-${i}`,
          taskQueue,
          workflowIdConflictPolicy: 'FAIL',
        }),
      })
      .then(
        () => undefined,
        (err: unknown) => errors.count(failureKind(err)),
      );
  try {
    return await worker.runUntil(async () => {
      await timed(4, 1, (i) => run(-1 - i));
      const cpuBefore = cpuSnapshot(d.cpuGroups);
      const before = errors.total;
      const concurrent = await timed(CREATES, CONCURRENCY, run);
      const concurrentErrors = errors.total - before;
      const cpu = cpuDeltaMs(cpuBefore, cpuSnapshot(d.cpuGroups));
      const serial = await timed(SERIAL, 1, (i) => run(CREATES + i));
      return { concurrent, serial, cpu, errors, concurrentErrors };
    });
  } finally {
    await connection.close();
  }
}

/**
 * The payout part of `npm run bench` (BENCH_ONLY=payouts): money out as the gateway runs it, a
 * BENCH_ITEMS (100,000) item batch against the provider's own throughput measured in the same run,
 * through each adapter of BENCH_PAYOUT_ADAPTERS (efi,sandbox), one after the other:
 *  - efi (PIX_TRANSFERS_API=efi: Efí's /v3/gn/pix and /v2/gn/pix/enviados routes on the sandbox)
 *    at its best per-account send concurrency (PIX_SEND_CONCURRENCY, a worker setting read at
 *    start, so the worker is restarted with it), chosen in the run: Efí's send hammered directly
 *    (scripts/lib/payoutBaselines.ts) with BENCH_PAYOUT_SWEEP_SENDS (2,000) sends at each of
 *    BENCH_SEND_CONCURRENCIES (1,4,16), the smallest within 5 % of the highest rate;
 *  - sandbox (PIX_TRANSFERS_API=sandbox: the sandbox's own POST /v1/transfers, no send slots): as
 *    many transfers in flight as the batch runs, PAYOUT_PARALLEL_CHUNKS × PAYOUT_ITEM_CONCURRENCY
 *    (above the API's cap of 10,000 items the batches go one after the other:
 *    scripts/lib/payoutBatchRun.ts).
 * Per adapter: a batch of a tenth first, then the full one (its worker's peak RSS reset before
 * it), each checked (every item PAID exactly once at the provider, the ledger invariant), then the
 * baseline at the same concurrency with BENCH_PAYOUT_BASELINE_SENDS (10,000) sends. An estimate
 * of each batch's time is printed before it. Rows: throughput ≥ 0.9 × the baseline,
 * time(n)/time(n/10) ≤ 11, the worker's peak RSS < 400 MiB; met is false on a run lighter than
 * 100,000 items. An adapter that fails (a batch that times out) gets its row and the next runs; a
 * failed check fails the part once every adapter is measured.
 */
import type { Client } from '@temporalio/client';
import type { Sequelize } from 'sequelize';
import { POLL_FIRST_MS, POLL_MAX_MS } from '../../activities/provider/efi/efiTransfers';
import { createMerchantWithCredential, type MerchantCredentials } from '../../db/identity/merchantAdmin';
import { Merchant } from '../../db/models';
import type { SandboxApp } from '../../sandbox/app';
import { dispatcherWorkflowId } from '../../workflows/events/definitions';
import type { BenchTable } from './benchTable';
import {
  bestConcurrency,
  hammerEfi,
  hammerSandboxTransfers,
  sweepLines,
  type BaselineRate,
  type BaselineTarget,
} from './payoutBaselines';
import {
  batchParts,
  checkRun,
  countNotices,
  fund,
  noticesFollowed,
  runBatch,
  type BatchRun,
  type PayoutAdapter,
  type RunCheck,
} from './payoutBatchRun';
import { hostSpeedNote, PROBE_SLICE, startHostProbe, type HostProbe } from './hostProbe';
import { describeError } from './loadFetch';
import { longestHistory } from './history';
import { cpuDeltaMs, cpuSnapshot, perOp, type ProcessGroups } from './processCpu';
import { peakRssMib, resetPeakRss } from './processMemory';

export interface PayoutBenchDeps extends BaselineTarget {
  apiUrl: string;
  /** The sandbox in this process: its record of the sends (transferStats) checks "paid once". */
  sandbox: SandboxApp;
  temporal: Client;
  taskQueue: string;
  /** Where a batch's CPU goes (api, worker, temporal, postgres, bench: this process, the sandbox included). */
  cpuGroups: ProcessGroups;
  sequelize: Sequelize;
  encryptionKey: string;
  /** Stops the worker and starts it again with these variables added, once it polls; its pid. */
  restartWorker: (env: Record<string, string>) => Promise<number>;
  settings: { chunkSize: number; parallelChunks: number; itemConcurrency: number; sliceSize?: number };
  /** The per-account send concurrencies the Efí sweep tries (BENCH_SEND_CONCURRENCIES). */
  sendConcurrencies: number[];
  /** BENCH_PAYOUT_ADAPTERS, in order. */
  adapters: PayoutAdapter[];
  /** Sends per concurrency of the sweep (BENCH_PAYOUT_SWEEP_SENDS). */
  sweepSends: number;
  /** Sends of the baseline the batch is compared with (BENCH_PAYOUT_BASELINE_SENDS). */
  baselineSends: number;
  items: number;
  table: BenchTable;
  line: (k: string, v: string) => void;
  waitUntil: (probe: () => Promise<boolean>, timeoutMs: number, what: string) => Promise<void>;
}

/** Sends before a sweep or a probe, not counted. */
const WARM_UP_SENDS = 300;

/** The goals' load: a lighter run reports its figures with met false. */
const GOAL_ITEMS = 100_000;

/** BENCH_SEND_CONCURRENCIES ("1,4,16" when unset): each a whole number 1..64, as PIX_SEND_CONCURRENCY takes. */
export function sendConcurrenciesFrom(raw: string | undefined): number[] {
  const values = (raw ?? '1,4,16')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean)
    .map(Number);
  if (!values.length || values.some((v) => !Number.isInteger(v) || v < 1 || v > 64))
    throw new Error('BENCH_SEND_CONCURRENCIES: comma-separated whole numbers 1..64 (PIX_SEND_CONCURRENCY)');
  return values;
}

/** BENCH_PAYOUT_ADAPTERS ("efi,sandbox" when unset): which send routes the part measures, in order. */
export function payoutAdaptersFrom(raw: string | undefined): PayoutAdapter[] {
  const values = (raw || 'efi,sandbox')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
  if (!values.length || values.some((v) => v !== 'efi' && v !== 'sandbox'))
    throw new Error('BENCH_PAYOUT_ADAPTERS: a comma-separated subset of efi,sandbox (PIX_TRANSFERS_API)');
  return [...new Set(values)] as PayoutAdapter[];
}

/** When the adapter first reads a send's outcome at or after `settleMs` (ms after the PUT): its poll schedule. */
export function firstOutcomeReadMs(settleMs: number): number {
  let at = 0;
  for (let pause = POLL_FIRST_MS; at < settleMs; pause = Math.min(pause * 2, POLL_MAX_MS)) at += pause;
  return at;
}

interface AdapterRun {
  adapter: PayoutAdapter;
  /** What the concurrency is, for names: "send c=4" or "80 in flight". */
  label: string;
  small: BatchRun;
  full: BatchRun;
  checks: RunCheck[];
  noticesS: number | null;
  /** sentPixNotice runs the full batch's notices started (only those that may change something get one). */
  noticeRuns: number | null;
  baseline: BaselineRate;
  workerPeakSmallMib: number;
  workerPeakMib: number;
  cpuPerItem: string;
  /** The host's speed during each batch: the probe's median slice, CPU ms (scripts/lib/hostProbe.ts). */
  hostSmallMs: number | undefined;
  hostFullMs: number | undefined;
}

export async function benchPayouts(d: PayoutBenchDeps): Promise<void> {
  const creds = await createMerchantWithCredential(
    d.sequelize,
    { name: 'Bench Pagadora', payoutsEnabled: true },
    d.encryptionKey,
  );
  await Merchant.update({ payoutFeeCents: 10 }, { where: { id: creds.merchantId } });
  const small = Math.max(1, Math.round(d.items / 10));
  await fund(d, creds, (d.items + small) * d.adapters.length * 200);
  process.stdout.write(
    `\npayouts: ${d.items} items (${batchParts(d.items).length} batch${batchParts(d.items).length > 1 ? 'es of 10,000 one after the other: the API takes at most 10,000 items per batch' : ''}) and ${small} before, through ${d.adapters.join(' then ')}; chunk ${d.settings.chunkSize}, ${d.settings.parallelChunks} chunks in parallel, ${d.settings.itemConcurrency} transfers per chunk, slices of ${d.settings.sliceSize ?? d.settings.itemConcurrency}; the sandbox settles an Efí send in ${d.efiSendSettleMs} ms (our first read of its outcome ${firstOutcomeReadMs(d.efiSendSettleMs)} ms after the PUT)\n`,
  );

  const runs: AdapterRun[] = [];
  const hostProbe = startHostProbe();
  try {
    for (const adapter of d.adapters) {
      try {
        runs.push(await runAdapter(d, creds, adapter, small, hostProbe));
      } catch (err) {
        // A batch that never ended (overload) or a service gone: this adapter's row, then the next.
        d.table.fail(`payouts ${adapter}`, describeError(err));
        process.stdout.write(`payouts through ${adapter} failed: ${describeError(err)}\n`);
      }
    }
  } finally {
    hostProbe.stop();
  }
  if (!runs.length) return;

  process.stdout.write(summaryTable(d, runs));
  for (const r of runs) {
    d.line(`${r.adapter}: POST answered in`, `${r.full.acceptedMs} ms (validated, staged, reserved)`);
    d.line(`${r.adapter}: CPU ms per item`, r.cpuPerItem);
    d.line(
      `${r.adapter}: host speed, n/10 · n`,
      `${hostMs(r.hostSmallMs)} · ${hostMs(r.hostFullMs)} CPU ms per probe slice (${PROBE_SLICE}; longer is slower)`,
    );
    d.line(`${r.adapter}: baseline load errors`, r.baseline.errors.summary());
    d.line(
      `${r.adapter}: history batch / largest chunk`,
      `${r.full.batchHistory} / ${r.full.largestChunk} (limit 51,200)`,
    );
    d.line(`${r.adapter}: checks`, r.checks.map((c) => c.summary).join(' | '));
  }
  d.line(
    'outbox dispatcher, longest run',
    `${await longestHistory(d.temporal, dispatcherWorkflowId(d.taskQueue))} history events`,
  );
  for (const r of runs) addRows(d, r, small);
  const failed = runs.filter((r) => r.checks.some((c) => !c.ok));
  if (failed.length)
    throw new Error(
      `payouts: ${failed
        .map(
          (r) =>
            `${r.adapter}: ${r.checks
              .filter((c) => !c.ok)
              .map((c) => c.summary)
              .join('; ')}`,
        )
        .join('; ')}`,
    );
}

async function runAdapter(
  d: PayoutBenchDeps,
  creds: MerchantCredentials,
  adapter: PayoutAdapter,
  small: number,
  hostProbe: HostProbe,
): Promise<AdapterRun> {
  let concurrency: number;
  let workerPid: number;
  let probe: BaselineRate;
  const hammer = (n: number, c: number) => (adapter === 'efi' ? hammerEfi(d, n, c) : hammerSandboxTransfers(d, n, c));
  if (adapter === 'efi') {
    // A warm-up first, not counted: the first few hundred sends of a process run slower (JIT,
    // connections), which would bias the sweep against whichever concurrency comes first.
    await hammerEfi(d, Math.min(WARM_UP_SENDS, d.sweepSends), Math.max(...d.sendConcurrencies));
    const sweep: BaselineRate[] = [];
    for (const c of d.sendConcurrencies) sweep.push(await hammerEfi(d, d.sweepSends, c));
    concurrency = bestConcurrency(sweep);
    probe = sweep.find((s) => s.concurrency === concurrency)!;
    process.stdout.write(
      `Efí's send hammered directly, per-account send concurrency:\n${sweepLines(sweep, concurrency)}`,
    );
    workerPid = await d.restartWorker({ PIX_TRANSFERS_API: 'efi', PIX_SEND_CONCURRENCY: String(concurrency) });
  } else {
    // No send slots on this route: the batch's own lanes set how many transfers are in flight.
    concurrency = d.settings.parallelChunks * d.settings.itemConcurrency;
    await hammerSandboxTransfers(d, Math.min(WARM_UP_SENDS, d.sweepSends), concurrency);
    probe = await hammerSandboxTransfers(d, d.sweepSends, concurrency);
    process.stdout.write(
      `the sandbox's POST /v1/transfers hammered directly at ${concurrency} in flight: ${probe.perS.toFixed(1)} transfers/s (${probe.sends})\n`,
    );
    workerPid = await d.restartWorker({ PIX_TRANSFERS_API: 'sandbox' });
  }
  const label = adapter === 'efi' ? `send c=${concurrency}` : `${concurrency} in flight`;
  const estimate = (n: number) =>
    `estimate: ${n} items through ${adapter} (${label}) take at least ${(n / probe.perS).toFixed(0)} s at the provider's ${probe.perS.toFixed(0)}/s, ${(n / (0.9 * probe.perS)).toFixed(0)} s at the goal's 0.9 ×\n`;

  process.stdout.write(estimate(small));
  resetPeakRss(workerPid);
  const first = await runBatch(d, creds, small);
  const workerPeakSmallMib = Math.round(peakRssMib(workerPid));
  const checks = [await checkRun(d, adapter, first, small)];
  if (adapter === 'efi') await noticesFollowed(d);
  process.stdout.write(
    `${adapter} ${small} items ${first.status} in ${(first.wallMs / 1000).toFixed(1)} s; ${checks[0].summary}\n${estimate(d.items)}`,
  );

  resetPeakRss(workerPid);
  const runsBefore = adapter === 'efi' ? await countNotices(d, false) : 0;
  const cpuBefore = cpuSnapshot(d.cpuGroups);
  const full = await runBatch(d, creds, d.items);
  const cpuPerItem = perOp(cpuDeltaMs(cpuBefore, cpuSnapshot(d.cpuGroups)), d.items);
  const workerPeakMib = Math.round(peakRssMib(workerPid));
  checks.push(await checkRun(d, adapter, full, d.items));
  const noticesS = adapter === 'efi' ? await noticesFollowed(d) : null;
  const noticeRuns = adapter === 'efi' ? (await countNotices(d, false)) - runsBefore : null;
  const baseline = await hammer(Math.min(d.baselineSends, d.items), concurrency);
  process.stdout.write(
    `${adapter} ${d.items} items ${full.status} in ${(full.wallMs / 1000).toFixed(1)} s (${(d.items / (full.wallMs / 1000)).toFixed(1)} items/s); baseline ${baseline.perS.toFixed(1)}/s at ${label}; ${checks[1].summary}\n`,
  );
  return {
    adapter,
    label,
    small: first,
    full,
    checks,
    noticesS,
    noticeRuns,
    baseline,
    workerPeakSmallMib,
    workerPeakMib,
    cpuPerItem,
    hostSmallMs: hostProbe.medianBetween(first.startedAt, first.startedAt + first.wallMs),
    hostFullMs: hostProbe.medianBetween(full.startedAt, full.startedAt + full.wallMs),
  };
}

function addRows(d: PayoutBenchDeps, r: AdapterRun, small: number): void {
  const light = d.items < GOAL_ITEMS ? `a run lighter than the goal's ${GOAL_ITEMS} items` : '';
  const checked = r.checks.every((c) => c.ok) ? '' : 'a check failed (see the checks line)';
  const itemsPerS = d.items / (r.full.wallMs / 1000);
  const errors = r.baseline.errors.total;
  const ratio = itemsPerS / r.baseline.perS;
  const missed = (own: string) =>
    [light, checked, own, errors ? `baseline load errors: ${r.baseline.errors.summary()}` : '']
      .filter(Boolean)
      .join('; ');
  const settle = r.adapter === 'efi' ? `, settle ${d.efiSendSettleMs} ms` : '';
  d.table.add({
    name: `payout throughput ${r.adapter} ${d.items} items, ${r.label}${settle} (items/s)`,
    ours: itemsPerS,
    baseline: r.baseline.perS,
    goal: "≥ 0.9 × the provider's own (a)",
    met: !light && !checked && !errors && ratio >= 0.9,
    errors,
    note: missed(ratio < 0.9 ? `${ratio.toFixed(2)} of the provider's rate` : ''),
  });
  const growth = r.full.wallMs / r.small.wallMs;
  d.table.add({
    name: `payout linearity ${r.adapter} time(${d.items})/time(${small}), ${r.label}`,
    ours: growth,
    baseline: null,
    ratio: null,
    goal: '≤ 11',
    met: !light && !checked && growth <= 11,
    note: missed(
      [
        growth > 11 ? `${(r.full.wallMs / 1000).toFixed(0)} s vs ${(r.small.wallMs / 1000).toFixed(0)} s` : '',
        hostSpeedNote(growth, r.hostSmallMs, r.hostFullMs),
      ]
        .filter(Boolean)
        .join('; '),
    ),
  });
  d.table.add({
    name: `worker peak RSS during the ${r.adapter} ${d.items}-item batch (MiB)`,
    ours: r.workerPeakMib,
    baseline: null,
    goal: '< 400 MiB',
    met: !light && r.workerPeakMib < 400,
    note: [light, r.workerPeakMib >= 400 ? `${r.workerPeakSmallMib} MiB at ${small} items` : '']
      .filter(Boolean)
      .join('; '),
  });
}

const hostMs = (ms: number | undefined) => (ms === undefined ? 'none' : ms.toFixed(1));

/** Per adapter: its concurrency, both batches, the baseline, the ratio, the worker's peaks. */
function summaryTable(d: PayoutBenchDeps, runs: AdapterRun[]): string {
  const head = [
    'adapter',
    'concurrency',
    `wall s n/10`,
    `wall s n`,
    'items/s',
    'baseline /s',
    'ratio',
    'worker MiB n/10 · n',
    'notices done +s',
    'notice runs n',
    'checks',
  ];
  const rows = runs.map((r) => {
    const itemsPerS = d.items / (r.full.wallMs / 1000);
    return [
      r.adapter,
      r.label,
      (r.small.wallMs / 1000).toFixed(1),
      (r.full.wallMs / 1000).toFixed(1),
      itemsPerS.toFixed(1),
      r.baseline.perS.toFixed(1),
      (itemsPerS / r.baseline.perS).toFixed(2),
      `${r.workerPeakSmallMib} · ${r.workerPeakMib}`,
      r.adapter !== 'efi' ? '—' : r.noticesS === null ? 'not all' : r.noticesS.toFixed(1),
      r.noticeRuns === null ? '—' : String(r.noticeRuns),
      r.checks.every((c) => c.ok) ? 'yes' : 'NO',
    ];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const fmt = (row: string[]) =>
    row
      .map((c, i) => c.padStart(widths[i]))
      .join('  ')
      .trimEnd();
  return (
    `\npayout batches (${d.items} items, ${Math.max(1, Math.round(d.items / 10))} before)\n` +
    [fmt(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(fmt)].join('\n') +
    '\n'
  );
}

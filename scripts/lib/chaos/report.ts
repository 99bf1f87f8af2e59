/**
 * The chaos run's report (markdown, written to .chaos/latest.md and printed): what was done
 * (operations by kind), every fault with how long the part took to come back and what clients saw
 * meanwhile, kills and restarts by part, how long paid charges took to reach the ledger after each
 * fault, the webhooks, and the audit's table. Read alone, it tells what was killed, when, and what
 * the system did about it.
 */
import type { FaultResult } from './faults';
import type { LoadEvent, LoadSummary } from './load';
import type { ChaosOptions } from './run';
import { settlementAfter, type SignalledPayment } from './settlementLag';
import type { StackAudit } from './stackAudit';

export interface ReportInput {
  opts: ChaosOptions;
  startedAt: Date;
  /** New operations issued (from the load's start until it was told to stop). */
  loadMs: number;
  /** The operations in flight finishing their retries. */
  drainMs: number;
  quietMs: number;
  faults: FaultResult[];
  events: LoadEvent[];
  summary: LoadSummary;
  payments: SignalledPayment[];
  longestLag?: { chargeId: string; ms: number };
  restarts: Record<string, number>;
  supervisorLines: string[];
  audit: StackAudit;
  machine: { cores: number; loadAverage: number[] };
}

/** What the load itself saw that must not happen: one key answered with two ids, an operation that broke. */
export function loadFindings(summary: LoadSummary): string[] {
  return [
    ...summary.idMismatches.map((m) => `one idempotency key answered with two ids: ${JSON.stringify(m)}`),
    ...summary.errors.map((e) => `an operation failed unexpectedly: ${e}`),
  ];
}

/** What a paid charge may take from a fault to the ledger before the report flags it ("!"). */
export const SETTLEMENT_BOUND_MS = 120_000;

/**
 * Why the run is not CLEAN (none: clean): the audit's discrepancies, a part that did not come
 * back, what the load saw that must not happen, and, when the run bounds it
 * (opts.settlementBounded: `npm run chaos`, not the suite's timing-free run), a fault after which
 * the payments that arrived meanwhile took longer than the bound to reach the ledger.
 */
export function runProblems(r: Pick<ReportInput, 'opts' | 'audit' | 'faults' | 'summary' | 'payments'>): string[] {
  return [
    ...(r.audit.clean ? [] : ['the audit found discrepancies (below)']),
    ...r.faults.flatMap((f) => (f.problem ? [`fault ${f.fault.n}: ${f.problem}`] : [])),
    ...loadFindings(r.summary),
    ...(r.opts.settlementBounded
      ? r.faults.flatMap((f) => {
          const settled = settlementAfter(f, r.payments);
          return (settled.settledMs ?? 0) > SETTLEMENT_BOUND_MS
            ? [
                `fault ${f.fault.n}: payments reached the ledger ${s(settled.settledMs)} s after it, beyond ${s(SETTLEMENT_BOUND_MS)} s`,
              ]
            : [];
        })
      : []),
  ];
}

const s = (ms: number | undefined) => (ms === undefined ? '—' : (ms / 1000).toFixed(1));

function table(head: string[], rows: (string | number)[][]): string {
  return [
    `| ${head.join(' | ')} |`,
    `| ${head.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
}

export function chaosReport(r: ReportInput): string {
  const findings = loadFindings(r.summary);
  const problems = runProblems(r);
  return [
    `# Chaos run, seed ${r.opts.seed}: ${problems.length === 0 ? 'CLEAN' : 'DISCREPANCIES FOUND'}`,
    '',
    ...(problems.length ? [...problems.map((p) => `- ${p}`), ''] : []),
    `Started ${r.startedAt.toISOString()}; ${s(r.loadMs)} s of load (CHAOS_SECONDS=${r.opts.seconds}; the first round of faults always completes), ${s(r.drainMs)} s for the requests in flight to finish their retries, then ${s(r.quietMs)} s until quiet and audited. ` +
      `Replay: \`CHAOS_SEED=${r.opts.seed} CHAOS_SECONDS=${r.opts.seconds} npm run chaos\`. ` +
      `Production engine (Temporal server on PostgreSQL, mutual TLS), the production build's processes, ${r.opts.workers} workers; ` +
      `${r.machine.cores} cores, load average at the end ${r.machine.loadAverage.map((l) => l.toFixed(1)).join(' / ')}.`,
    '',
    '## Operations',
    '',
    operations(r.summary),
    '',
    `Attempts that failed while parts were down or coming back: ${r.summary.attempts.fiveXx} × 5xx, ${r.summary.attempts.timeouts} timeouts, ${r.summary.attempts.connection} connection errors (each retried with the same idempotency key).`,
    '',
    `Idempotency probes: ${r.summary.idChecks.replays} keys replayed and ${r.summary.idChecks.concurrent} sent twice at once; ${r.summary.idMismatches.length} answered with another id. ` +
      (findings.length === 0
        ? 'The load saw nothing that must not happen.'
        : `The load saw:\n\n${findings.map((f) => `- ${f}`).join('\n')}`),
    '',
    '## Faults',
    '',
    faultTable(r),
    '',
    `"new process": the supervisor's new pid (the Temporal server and PostgreSQL: once they accept); "up": the part answering ` +
      `(API /healthz, sandbox /health, the worker's own /healthz: 200 once it polls); "ready": the gateway's /ready 200; ` +
      `"settled": from the fault until every payment that arrived while the part was away was in the ledger ` +
      `(bound ${s(SETTLEMENT_BOUND_MS)} s; "!" beyond it${r.opts.settlementBounded ? ', which fails the run' : ', reported only in this run'}).`,
    '',
    '## Kills and restarts by part',
    '',
    byPart(r),
    '',
    '## Paid charges and webhooks',
    '',
    `${r.payments.length} payments passed to their charge's workflow during the run; ` +
      `${r.payments.filter((p) => p.settledAt === undefined).length} not in the ledger. Longest callback → ledger: ` +
      `${r.longestLag ? `${s(r.longestLag.ms)} s (charge ${r.longestLag.chargeId})` : '—'}.`,
    '',
    webhooks(r.summary),
    '',
    '## Audit',
    '',
    r.audit.table,
    '',
  ].join('\n');
}

function operations(summary: LoadSummary): string {
  const rows = table(
    ['operation', 'requested', 'succeeded', 'refused (4xx, expected)', 'gave up'],
    Object.entries(summary.operations).map(([op, c]) => [op, c.requested, c.succeeded, c.refused, c.gaveUp]),
  );
  if (summary.overBudget === 0) return rows;
  return `${rows}\n${summary.overBudget} payout batches drawn after the run's item budget was spent were not sent.\n`;
}

function faultTable(r: ReportInput): string {
  const t0 = r.startedAt.getTime();
  return table(
    [
      '#',
      'at (s)',
      'target',
      'action',
      'new process (s)',
      'up (s)',
      'ready (s)',
      '5xx',
      'timeouts',
      'conn. errors',
      'payments meanwhile',
      'settled (s)',
      'problem',
    ],
    r.faults.map((f) => {
      const during = r.events.filter((e) => e.at >= f.at && e.at <= f.backAt);
      const count = (o: LoadEvent['outcome']) => during.filter((e) => e.outcome === o).length;
      const settled = settlementAfter(f, r.payments);
      const settledCell =
        settled.payments === 0
          ? '—'
          : settled.unsettled > 0
            ? `${settled.unsettled} unsettled`
            : `${s(settled.settledMs)}${(settled.settledMs ?? 0) > SETTLEMENT_BOUND_MS ? ' !' : ''}`;
      return [
        f.fault.n,
        s(f.at - t0),
        f.fault.target,
        f.fault.action === 'kill' ? 'SIGKILL' : `SIGSTOP ${s(f.fault.pauseMs)} s`,
        s(f.newProcessMs),
        s(f.upMs),
        s(f.readyMs),
        count('5xx'),
        count('timeout'),
        count('connection'),
        settled.payments,
        settledCell,
        f.problem ?? '',
      ];
    }),
  );
}

function byPart(r: ReportInput): string {
  const parts = Object.keys(r.restarts);
  return table(
    ['part', 'kills', 'pauses', 'restarts by the supervisor', 'slowest back to ready (s)'],
    parts.map((p) => {
      const mine = r.faults.filter((f) => f.fault.target === p);
      const slowest = Math.max(...mine.map((f) => f.readyMs ?? -1));
      return [
        p,
        mine.filter((f) => f.fault.action === 'kill').length,
        mine.filter((f) => f.fault.action === 'pause').length,
        r.restarts[p],
        slowest < 0 ? '—' : s(slowest),
      ];
    }),
  );
}

function webhooks(summary: LoadSummary): string {
  const w = summary.webhooks;
  return [
    `Webhooks received by the receivers that answer 200: ${w.received} (${w.duplicates} duplicates by event id, at-least-once; ${w.badSignatures} bad signatures); longest delay from event to arrival ${s(w.longestDelayMs)} s.`,
    '',
    table(
      ['event', 'received'],
      Object.entries(w.byEvent).map(([e, n]) => [e, n]),
    ),
  ].join('\n');
}

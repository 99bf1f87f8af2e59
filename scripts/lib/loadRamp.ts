/**
 * The webhook part's ramp (issue 40: the knee, not a fixed rate), shared by ours and the floor
 * (scripts/lib/webhookBench.ts, scripts/lib/floorBench.ts) so both are driven and judged alike:
 * the same load generator (atRate), the same rates (BENCH_WEBHOOK_RATES, default 5,10,20,40,80
 * per second, in ascending order), the same step length (BENCH_WEBHOOK_SECONDS, 30; or
 * BENCH_CHARGES events per step), the same rule for a step that holds, and the same stop: the
 * ramp ends after the first step that does not hold (beyond the knee more load only builds a
 * backlog that slows what runs next). The knee is the highest rate that held, 0 if none did.
 */

export const RATES = [
  ...new Set(
    (process.env.BENCH_WEBHOOK_RATES ?? '5,10,20,40,80')
      .split(',')
      .map((r) => Number(r.trim()))
      .filter((r) => r > 0),
  ),
].sort((a, b) => a - b);

/** Events per step at `rate`. */
export const countAt = (rate: number): number =>
  process.env.BENCH_CHARGES
    ? Number(process.env.BENCH_CHARGES)
    : Math.round(rate * Number(process.env.BENCH_WEBHOOK_SECONDS ?? 30));

/** How long after the last event its handling may take before it counts as not delivered (and the step's wait ends). */
export const DRAIN_MS = 60_000;

/** A step's p99 must stay below this. */
export const P99_LIMIT_MS = 250;

/**
 * Starts `send(i)` for i < count, one every 1/rate s without waiting for the previous one
 * (arrivals do not wait); the rate it really offered: count over the time from the first send to
 * one gap after the last (a busy host's timers fire late, and the sends with them).
 */
export async function atRate(rate: number, count: number, send: (i: number) => Promise<unknown>): Promise<number> {
  const gapMs = 1000 / rate;
  const started = performance.now();
  const inFlight: Promise<unknown>[] = [];
  let lastStartedAt = started;
  for (let i = 0; i < count; i++) {
    lastStartedAt = performance.now();
    inFlight.push(send(i));
    // Against the schedule, not the last send, so slow sends do not lower the rate.
    const wait = started + (i + 1) * gapMs - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  await Promise.all(inFlight);
  return count / ((lastStartedAt - started + gapMs) / 1000);
}

/** A rate the generator offered within 5 % of the asked one counts as reached. */
export const reached = (offered: number, rate: number): boolean => offered >= 0.95 * rate;

/** What a step measured, ours or the floor's. */
export interface RampStep {
  rate: number;
  /** Events the step asked for (rate × seconds). */
  asked: number;
  /** Events sent (ours: charges created and paid). */
  sent: number;
  delivered: number;
  /** The rate the generator really offered. */
  offered: number;
  /** delivered over first event sent → last delivery. */
  deliveredPerS: number;
  p50: number;
  p99: number;
  /** CPU ms per delivered event of the process groups that count (ours: api, worker, temporal, postgres). */
  cpuMs: number;
  /** The load generator's failed requests. */
  errors: number;
  held: boolean;
  /** Why it did not hold ('' when it did). */
  why: string;
}

/**
 * A step holds when every event is delivered, delivered/s is at least 98 % of the offered rate
 * (within 2 %: it exceeds it only by the measuring window's edge), p99 < 250 ms, and the load was
 * reached with no load error.
 */
export function judge(s: Omit<RampStep, 'held' | 'why'>): RampStep {
  const why = [
    s.errors ? `${s.errors} load errors` : '',
    reached(s.offered, s.rate) ? '' : `offered ${s.offered.toFixed(1)}/s of ${s.rate}/s`,
    s.sent < s.asked ? `${s.asked - s.sent} of ${s.asked} not sent` : '',
    s.delivered < s.sent ? `${s.sent - s.delivered} of ${s.sent} undelivered` : '',
    s.deliveredPerS < 0.98 * s.offered
      ? `delivered ${s.deliveredPerS.toFixed(1)}/s < 98 % of ${s.offered.toFixed(1)}/s offered`
      : '',
    s.p99 < P99_LIMIT_MS ? '' : `p99 ${Math.round(s.p99)} ms ≥ ${P99_LIMIT_MS}`,
  ]
    .filter(Boolean)
    .join(', ');
  return { ...s, held: why === '', why };
}

/** Runs `step` at each rate in turn until one does not hold; the steps measured and the knee. */
export async function ramp(
  rates: number[],
  step: (rate: number) => Promise<RampStep>,
): Promise<{ steps: RampStep[]; knee: number }> {
  const steps: RampStep[] = [];
  for (const rate of rates) {
    const s = await step(rate);
    steps.push(s);
    if (!s.held) break;
  }
  return { steps, knee: Math.max(0, ...steps.filter((s) => s.held).map((s) => s.rate)) };
}

/**
 * The seeded mixed load `npm run chaos` drives while it kills the stack's processes: seller and
 * application Pix charges (paid, or left to expire), boletos, refunds, withdrawals, settlements,
 * payout batches (some cancelled at once), checkouts (P0 and sessions) and MED infractions, mixed
 * at random from one seed, with webhook endpoints on local receivers of every behaviour.
 *
 * Every create carries an idempotency key; every call is retried on 5xx, timeouts and connection
 * errors with the same key (client.ts); some keys are replayed on purpose or sent twice at once
 * and the answers' ids compared (idempotency.ts). In-flight operations are bounded.
 */
import type { OpContext, OpEnd, OpPlan } from './common';
import { prepareFixture, type LoadFixture } from './fixture';
import { appCharge } from './ops/appCharges';
import { boleto } from './ops/boletos';
import { checkout, checkoutSession } from './ops/checkouts';
import { med } from './ops/med';
import { payout } from './ops/payouts';
import { refund } from './ops/refunds';
import { sellerChargeExpired, sellerChargePaid } from './ops/sellerCharges';
import { settlement } from './ops/settlements';
import { withdrawal } from './ops/withdrawals';
import { DEFAULT_WEIGHTS, drawPlan, payoutBudget, type PlanSettings } from './plan';
import { RECEIVER_KINDS, type ReceiverKind, type ReceiverStats } from './receivers';
import type { IdMismatch, OperationCount } from './stats';
import type { LoadOptions, LoadTarget, OpKind } from './types';

export type { LoadEvent, LoadOptions, LoadTarget, OpKind } from './types';
export type { LoadFixture } from './fixture';
export { DEFAULT_WEIGHTS } from './plan';
export { seededRandom } from './random';

const OPERATIONS: Record<OpKind, (ctx: OpContext, plan: OpPlan) => Promise<OpEnd>> = {
  sellerChargePaid,
  sellerChargeExpired,
  appCharge,
  boleto,
  refund,
  withdrawal,
  settlement,
  payout,
  checkout,
  checkoutSession,
  med,
};

export interface LoadSummary {
  operations: Record<string, OperationCount>;
  attempts: { fiveXx: number; timeouts: number; connection: number };
  /** The good receiver's deliveries (the one that answers 200 at once). */
  webhooks: {
    received: number;
    duplicates: number;
    badSignatures: number;
    longestDelayMs: number;
    byEvent: Record<string, number>;
  };
  merchants: string[];
  /** Each receiver's deliveries, and the webhook endpoint each merchant has on it. */
  receivers: Record<ReceiverKind, ReceiverStats & { webhookIds: Record<string, string> }>;
  /** Findings: one key answered with different ids. */
  idMismatches: IdMismatch[];
  idChecks: { replays: number; concurrent: number };
  /** Refusals by `op status code`. */
  refusals: Record<string, number>;
  /** Payout batches not sent: the run's item budget was spent (LoadOptions.payoutItemBudget). */
  overBudget: number;
  /** Operations that threw, with what they said. */
  errors: string[];
  /** What the load made, by kind (ids), for the audit. */
  created: Record<string, string[]>;
  /** The received event ids of each receiver, for the audit. */
  events: (kind: ReceiverKind) => Array<{ eventId: string; type: string; count: number }>;
  /** Closes the receivers (after the audit). */
  close(): Promise<void>;
}

export interface RunningLoad {
  /** Stops issuing operations and waits for the ones in flight to finish their (bounded) retries. */
  stop(): Promise<LoadSummary>;
}

/** Merchants, credentials, a signed-in owner, webhook endpoints on receivers, a course price, funding. */
export function prepareLoad(target: LoadTarget, opts: LoadOptions): Promise<LoadFixture> {
  return prepareFixture(target, opts);
}

function planSettings(opts: LoadOptions): PlanSettings {
  return {
    weights: { ...DEFAULT_WEIGHTS, ...opts.weights },
    payoutItems: opts.payoutItems ?? { min: 100, max: 2_000 },
    replayRate: opts.replayRate ?? 0.1,
    concurrentRate: opts.concurrentRate ?? 0.05,
  };
}

export function startLoad(fixture: LoadFixture, opts: LoadOptions): RunningLoad {
  fixture.stats.log = opts.log;
  const ctx: OpContext = { client: fixture.client, stats: fixture.stats, fixture };
  const settings = planSettings(opts);
  const withinBudget = payoutBudget(opts.payoutItemBudget);
  const intervalMs = 1_000 / (opts.ratePerSecond ?? 1.5);
  const maxInFlight = opts.maxInFlight ?? 6;
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  let wake: () => void = () => undefined;
  const pause = (ms: number) =>
    new Promise<void>((r) => {
      const timer = setTimeout(r, ms);
      wake = () => {
        clearTimeout(timer);
        r();
      };
    });

  const launch = (plan: OpPlan) => {
    fixture.stats.requested(plan.kind);
    const running: Promise<void> = OPERATIONS[plan.kind](ctx, plan)
      .catch((err: unknown): OpEnd => {
        fixture.stats.errors.push(`${plan.kind} #${plan.seq}: ${err instanceof Error ? err.message : String(err)}`);
        return 'gaveUp';
      })
      .then((end) => fixture.stats.ended(plan.kind, end))
      .finally(() => inFlight.delete(running));
    inFlight.add(running);
  };

  const loop = (async () => {
    for (let seq = 0; !stopped; seq++) {
      // Drawn before waiting for a slot: the sequence of decisions does not depend on timing.
      const plan = withinBudget(drawPlan(opts.random, seq, settings));
      if (!plan) {
        fixture.stats.overBudget++;
        await pause(intervalMs);
        continue;
      }
      while (inFlight.size >= maxInFlight && !stopped) await Promise.race([...inFlight, pause(1_000)]);
      if (stopped) break;
      launch(plan);
      await pause(intervalMs);
    }
  })();

  return {
    async stop() {
      stopped = true;
      wake();
      await loop;
      await Promise.all([...inFlight]);
      return summarize(fixture);
    },
  };
}

function summarize(fixture: LoadFixture): LoadSummary {
  const { stats, receivers } = fixture;
  const receiverStats = {} as LoadSummary['receivers'];
  for (const kind of RECEIVER_KINDS) {
    const webhookIds: Record<string, string> = {};
    for (const m of [fixture.main, fixture.second]) {
      const id = m.webhooks[kind];
      if (id) webhookIds[m.creds.merchantId] = id;
    }
    receiverStats[kind] = { ...receivers[kind].stats(), webhookIds };
  }
  const good = receiverStats.good;
  return {
    operations: stats.operations,
    attempts: stats.attempts,
    webhooks: {
      received: good.received,
      duplicates: good.duplicates,
      badSignatures: good.badSignatures,
      longestDelayMs: good.longestDelayMs,
      byEvent: good.byEvent,
    },
    merchants: [fixture.main.creds.merchantId, fixture.second.creds.merchantId],
    receivers: receiverStats,
    idMismatches: stats.idMismatches,
    idChecks: stats.idChecks,
    refusals: stats.refusals,
    overBudget: stats.overBudget,
    errors: stats.errors,
    created: stats.created,
    events: (kind) => receivers[kind].events(),
    close: async () => {
      await Promise.all(RECEIVER_KINDS.map((k) => receivers[k].close()));
    },
  };
}

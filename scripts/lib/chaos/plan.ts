/** Drawing an operation's plan: always the same number of draws, so one seed gives one sequence. */
import type { OpPlan } from './common';
import { chance, intBetween, weightedPick } from './random';
import type { OpKind } from './types';

/** How often each kind is drawn by default: mostly charges, money out now and then. */
export const DEFAULT_WEIGHTS: Record<OpKind, number> = {
  sellerChargePaid: 22,
  sellerChargeExpired: 8,
  appCharge: 8,
  boleto: 6,
  refund: 10,
  withdrawal: 6,
  settlement: 4,
  payout: 3,
  checkout: 5,
  checkoutSession: 5,
  med: 4,
};

/** Money out is small beside what comes in, so the balance lasts the whole run. */
const MONEY_OUT: OpKind[] = ['withdrawal', 'settlement'];

export interface PlanSettings {
  weights: Record<OpKind, number>;
  payoutItems: { min: number; max: number };
  replayRate: number;
  concurrentRate: number;
}

export function drawPlan(random: () => number, seq: number, s: PlanSettings): OpPlan {
  const kind = weightedPick(random, s.weights);
  const chargeCents = intBetween(random, 100, 50_000);
  const onSecond = chance(random, 0.3);
  const variant = random();
  const concurrent = chance(random, s.concurrentRate);
  const replay = chance(random, s.replayRate);
  const items = intBetween(random, s.payoutItems.min, s.payoutItems.max);
  const itemCents = intBetween(random, 1, 100);
  const amountCents = MONEY_OUT.includes(kind) ? 100 + (chargeCents % 1_900) : chargeCents;
  return { kind, seq, amountCents, onSecond, variant, probe: { concurrent, replay }, items, itemCents };
}

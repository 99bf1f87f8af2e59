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

/**
 * The run's payout items at most. One send at a time pays roughly 5 items a second, so a run that
 * sends more than the stack pays before the quiet wait ends is audited half-paid (the third 600 s
 * run of issue 35: about 8,400 items, 554 still reserved at the deadline). The batch that reaches
 * the budget is trimmed to what is left; every later one is not sent (undefined). Applied to plans
 * in the order drawn, so one seed still gives one sequence.
 */
export function payoutBudget(total: number | undefined): (plan: OpPlan) => OpPlan | undefined {
  let left = total ?? Infinity;
  return (plan) => {
    if (plan.kind !== 'payout') return plan;
    if (left <= 0) return undefined;
    const items = Math.min(plan.items, left);
    left -= items;
    return items === plan.items ? plan : { ...plan, items };
  };
}

/** The chaos load's decisions (scripts/lib/chaos/plan.ts): one seed, one sequence; weights respected. */
import { DEFAULT_WEIGHTS, drawPlan, payoutBudget, type PlanSettings } from '../../scripts/lib/chaos/plan';
import { seededRandom, weightedPick } from '../../scripts/lib/chaos/random';

const settings: PlanSettings = {
  weights: DEFAULT_WEIGHTS,
  payoutItems: { min: 100, max: 2_000 },
  replayRate: 0.1,
  concurrentRate: 0.05,
};

function sequence(seed: number, n: number) {
  const random = seededRandom(seed);
  return Array.from({ length: n }, (_, seq) => drawPlan(random, seq, settings));
}

test('the same seed draws the same plans, another seed others', () => {
  expect(sequence(42, 200)).toEqual(sequence(42, 200));
  expect(sequence(43, 200)).not.toEqual(sequence(42, 200));
});

test('plans stay within their bounds', () => {
  for (const plan of sequence(7, 2_000)) {
    expect(plan.items).toBeGreaterThanOrEqual(100);
    expect(plan.items).toBeLessThanOrEqual(2_000);
    expect(plan.itemCents).toBeGreaterThanOrEqual(1);
    expect(plan.itemCents).toBeLessThanOrEqual(100);
    expect(plan.amountCents).toBeGreaterThanOrEqual(100);
    const moneyOut = plan.kind === 'withdrawal' || plan.kind === 'settlement';
    expect(plan.amountCents).toBeLessThanOrEqual(moneyOut ? 2_000 : 50_000);
  }
});

test('a kind of weight 0 is never drawn, and the others in proportion', () => {
  const random = seededRandom(1);
  const counts: Record<string, number> = { a: 0, b: 0, c: 0 };
  for (let i = 0; i < 10_000; i++) counts[weightedPick(random, { a: 1, b: 3, c: 0 })]++;
  expect(counts.c).toBe(0);
  expect(counts.b / counts.a).toBeGreaterThan(2.5);
  expect(counts.b / counts.a).toBeLessThan(3.5);
});

test('the payout budget trims the batch that reaches it and refuses every later one', () => {
  const take = payoutBudget(2_500);
  const plans = sequence(11, 400).filter((p) => p.kind === 'payout');
  const kept = plans.map(take).filter((p) => p !== undefined);
  const total = kept.reduce((sum, p) => sum + p.items, 0);
  expect(total).toBe(2_500);
  expect(kept.length).toBeLessThan(plans.length);
  // Not a payout: passed through untouched, whatever the budget.
  const charge = sequence(11, 50).find((p) => p.kind !== 'payout')!;
  expect(take(charge)).toBe(charge);
  // No budget: nothing trimmed.
  const unbounded = payoutBudget(undefined);
  expect(plans.map(unbounded)).toEqual(plans);
});

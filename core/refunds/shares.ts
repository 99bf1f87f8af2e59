/**
 * Who gives back what when a paid charge is refunded: the refund is taken from everyone the
 * payment credited, in proportion — the platform's fee, each split merchant's share, and the
 * charge owner's net. Pure.
 *
 * Rounding is cumulative: the shares of a refund are the allocation of (refunded so far + this
 * refund) minus the allocation of (refunded so far). However a payment is refunded in parts,
 * once it is refunded in full every party has given back exactly what it received, and the
 * shares of each refund sum to its amount.
 */
import { assertCents } from '../money';

export interface PaidCharge {
  amountCents: number;
  feeCents: number;
  splits: { merchantId: string; amountCents: number }[];
}

export interface RefundShares {
  ownerCents: number;
  feeCents: number;
  splits: { merchantId: string; amountCents: number }[];
  /**
   * A MED devolução only (core/med/claim.ts): the parties' shares their held money did not cover,
   * paid by the platform (the merchants keep owing it); absent on every other refund.
   */
  advancedCents?: number;
}

/** Allocates `x` of the paid amount over [fee, ...splits, owner] by largest remainder. */
function cumulative(charge: PaidCharge, x: number): number[] {
  const received = [charge.feeCents, ...charge.splits.map((s) => s.amountCents)];
  received.push(charge.amountCents - received.reduce((a, b) => a + b, 0));
  if (received.some((r) => r < 0)) throw new Error('the charge credited more than it was paid');
  const exact = received.map((r) => (r * x) / charge.amountCents);
  const floors = exact.map(Math.floor);
  let left = x - floors.reduce((a, b) => a + b, 0);
  // Largest fractional part first; ties go to the later party (the owner last in the list wins).
  const order = exact.map((e, i) => ({ i, frac: e - Math.floor(e) })).sort((a, b) => b.frac - a.frac || b.i - a.i);
  for (const { i } of order) {
    if (left === 0) break;
    floors[i]++;
    left--;
  }
  return floors;
}

export function refundShares(charge: PaidCharge, alreadyRefundedCents: number, refundCents: number): RefundShares {
  assertCents(charge.amountCents);
  if (!Number.isSafeInteger(refundCents) || refundCents <= 0) throw new Error(`invalid refund amount ${refundCents}`);
  if (!Number.isSafeInteger(alreadyRefundedCents) || alreadyRefundedCents < 0)
    throw new Error(`invalid refunded amount ${alreadyRefundedCents}`);
  if (alreadyRefundedCents + refundCents > charge.amountCents) throw new Error('refund exceeds the paid amount');
  const before = cumulative(charge, alreadyRefundedCents);
  const after = cumulative(charge, alreadyRefundedCents + refundCents);
  const delta = after.map((a, i) => a - before[i]);
  return {
    feeCents: delta[0],
    splits: charge.splits.map((s, i) => ({ merchantId: s.merchantId, amountCents: delta[i + 1] })),
    ownerCents: delta[delta.length - 1],
  };
}

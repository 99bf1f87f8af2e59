/**
 * Who a Pix infraction's claim reaches, and how much each party holds or owes (issue 38, MED 2.0).
 * Pure; activities/med writes what it decides.
 *
 * The rule (docs/api/med.md "Who holds and who owes"):
 *  - The claim is split as a refund of the charge would be (core/refunds/shares.ts): the platform's
 *    fee share, each split partner's share and the owner's net, in proportion to what each received
 *    from that charge; so what each party holds for the case is what it gives back if it is upheld.
 *  - The platform bears its fee's share itself: nobody owes it. The owner's available covers it
 *    first after its own share, held as MED 1 held the whole disputed amount (a cautious hold
 *    released at the devolução, when the platform gives that share back from its fees).
 *  - Each party blocks what its available balance has, up to its share, and owes the rest: a
 *    partner short of money owes as the owner does, and its later credits cover it first.
 *  - A debt is recovered from each later credit to that merchant's available (recoveryOf), until
 *    it is covered or the case ends.
 */
import { refundShares, type PaidCharge } from '../refunds/shares';

/** One merchant's part of a claim: what it holds for the case (blocked + recovered) and still owes. */
export interface ClaimParty {
  merchantId: string;
  /** Its share of the claim: what it gives back when the claim is upheld. */
  shareCents: number;
  /** Blocked at once and recovered since; may pass shareCents by the platform's fee share (owner only). */
  heldCents: number;
  /** What its balance did not cover and no credit has recovered yet. */
  owedCents: number;
}

/** The shares of a claim of `claimCents` on a charge refunded `alreadyRefundedCents` so far. */
export function claimShares(
  paid: PaidCharge & { ownerMerchantId: string },
  alreadyRefundedCents: number,
  claimCents: number,
): { feeCents: number; parties: { merchantId: string; shareCents: number }[] } {
  const cents = Math.min(claimCents, paid.amountCents - alreadyRefundedCents);
  if (cents <= 0) return { feeCents: 0, parties: [{ merchantId: paid.ownerMerchantId, shareCents: 0 }] };
  const shares = refundShares(paid, alreadyRefundedCents, cents);
  const byMerchant = new Map<string, number>([[paid.ownerMerchantId, shares.ownerCents]]);
  for (const s of shares.splits) byMerchant.set(s.merchantId, (byMerchant.get(s.merchantId) ?? 0) + s.amountCents);
  return {
    feeCents: shares.feeCents,
    // The owner first (its share may be 0 and it still holds the fee share); a partner with no share is no party.
    parties: [...byMerchant]
      .filter(([merchantId, shareCents]) => merchantId === paid.ownerMerchantId || shareCents > 0)
      .map(([merchantId, shareCents]) => ({ merchantId, shareCents })),
  };
}

/**
 * What one party blocks now and owes: its available covers its share first, then (the owner
 * only, `extraHoldCents` = the fee share) the platform's share; only its own share can be owed.
 */
export function blockOrOwe(
  shareCents: number,
  availableCents: number,
  extraHoldCents = 0,
): { heldCents: number; owedCents: number } {
  const free = Math.max(0, availableCents);
  const heldCents = Math.min(free, shareCents + extraHoldCents);
  return { heldCents, owedCents: Math.max(0, shareCents - heldCents) };
}

/** How much of a credit of `creditCents` goes to a debt of `owedCents`: all of it, up to the debt. */
export function recoveryOf(creditCents: number, owedCents: number): number {
  return Math.max(0, Math.min(creditCents, owedCents));
}

/**
 * What each party gives back at the devolução of an upheld claim: its share, from what it holds
 * (the rest of what it holds goes back to available); what it still owes is advanced by the
 * platform and stays owed (recovered from its later credits).
 */
export function devolucaoOf(party: ClaimParty): { fromHeldCents: number; advancedCents: number } {
  const fromHeldCents = Math.min(party.heldCents, party.shareCents);
  return { fromHeldCents, advancedCents: party.shareCents - fromHeldCents };
}

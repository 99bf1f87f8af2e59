/** Ledger rules: which postings each money movement makes. Pure; the DB layer writes them. */
import { accounts } from './accounts';

export interface Posting {
  accountCode: string;
  amountCents: number;
}

export interface LedgerEntry {
  /** Unique per money movement: writing the same key twice changes nothing. */
  movementKey: string;
  kind: string;
  referenceType: string;
  referenceId: string;
  postings: Posting[];
}

export function assertBalanced(postings: Posting[]): void {
  const sum = postings.reduce((s, p) => s + p.amountCents, 0);
  if (sum !== 0) throw new Error(`unbalanced ledger entry: postings sum to ${sum}`);
  for (const p of postings) {
    if (!Number.isSafeInteger(p.amountCents) || p.amountCents === 0)
      throw new Error(`invalid posting amount ${p.amountCents}`);
  }
}

/** Postings with the same account are merged and zero lines dropped (e.g. a fee of 0). */
function compact(postings: Posting[]): Posting[] {
  const byAccount = new Map<string, number>();
  for (const p of postings) byAccount.set(p.accountCode, (byAccount.get(p.accountCode) ?? 0) + p.amountCents);
  return [...byAccount].filter(([, v]) => v !== 0).map(([accountCode, amountCents]) => ({ accountCode, amountCents }));
}

export function chargePaidEntry(input: {
  chargeId: string;
  merchantId: string;
  amountCents: number;
  feeCents: number;
  splits: { merchantId: string; amountCents: number }[];
  /** Where the money came from: Pix payins by default; a boleto paid by barcode comes from boleto payins. */
  payinsAccount?: string;
}): LedgerEntry {
  const shares = input.splits.reduce((s, x) => s + x.amountCents, 0);
  const ownerNet = input.amountCents - input.feeCents - shares;
  if (ownerNet < 0) throw new Error('charge owner net would be negative');
  const postings = compact([
    { accountCode: input.payinsAccount ?? accounts.pixPayins, amountCents: -input.amountCents },
    { accountCode: accounts.merchantAvailable(input.merchantId), amountCents: ownerNet },
    { accountCode: accounts.platformFees, amountCents: input.feeCents },
    ...input.splits.map((s) => ({ accountCode: accounts.merchantAvailable(s.merchantId), amountCents: s.amountCents })),
  ]);
  assertBalanced(postings);
  return {
    movementKey: `charge-paid:${input.chargeId}`,
    kind: 'CHARGE_PAID',
    referenceType: 'charge',
    referenceId: input.chargeId,
    postings,
  };
}

/**
 * Withdrawal (saque), in three movements keyed by the withdrawal id:
 * request reserves amount + fee (available → reserved), so concurrent requests cannot spend the
 * same money; completion sends the amount out (reserved → provider clearing) and books the fee
 * (reserved → platform fees); failure or cancel returns the whole reserve (reserved → available).
 * Completion and release are alternatives: a withdrawal's status decides which one is written.
 */
export interface WithdrawalMoney {
  withdrawalId: string;
  merchantId: string;
  amountCents: number;
  feeCents: number;
}

function withdrawalTotal(w: WithdrawalMoney): number {
  if (!Number.isSafeInteger(w.amountCents) || w.amountCents <= 0)
    throw new Error(`invalid withdrawal amount ${w.amountCents}`);
  if (!Number.isSafeInteger(w.feeCents) || w.feeCents < 0) throw new Error(`invalid withdrawal fee ${w.feeCents}`);
  return w.amountCents + w.feeCents;
}

export function withdrawalReservedEntry(w: WithdrawalMoney): LedgerEntry {
  const total = withdrawalTotal(w);
  const postings = [
    { accountCode: accounts.merchantAvailable(w.merchantId), amountCents: -total },
    { accountCode: accounts.merchantReserved(w.merchantId), amountCents: total },
  ];
  assertBalanced(postings);
  return {
    movementKey: `withdrawal-reserve:${w.withdrawalId}`,
    kind: 'WITHDRAWAL_RESERVED',
    referenceType: 'withdrawal',
    referenceId: w.withdrawalId,
    postings,
  };
}

export function withdrawalCompletedEntry(w: WithdrawalMoney): LedgerEntry {
  const total = withdrawalTotal(w);
  const postings = compact([
    { accountCode: accounts.merchantReserved(w.merchantId), amountCents: -total },
    { accountCode: accounts.providerClearing, amountCents: w.amountCents },
    { accountCode: accounts.platformFees, amountCents: w.feeCents },
  ]);
  assertBalanced(postings);
  return {
    movementKey: `withdrawal-complete:${w.withdrawalId}`,
    kind: 'WITHDRAWAL_COMPLETED',
    referenceType: 'withdrawal',
    referenceId: w.withdrawalId,
    postings,
  };
}

export function withdrawalReleasedEntry(w: WithdrawalMoney): LedgerEntry {
  const total = withdrawalTotal(w);
  const postings = [
    { accountCode: accounts.merchantReserved(w.merchantId), amountCents: -total },
    { accountCode: accounts.merchantAvailable(w.merchantId), amountCents: total },
  ];
  assertBalanced(postings);
  return {
    movementKey: `withdrawal-release:${w.withdrawalId}`,
    kind: 'WITHDRAWAL_RELEASED',
    referenceType: 'withdrawal',
    referenceId: w.withdrawalId,
    postings,
  };
}

/**
 * Refund of a paid charge, in three movements keyed by the refund id (core/refunds/shares.ts
 * says who gives back what). Reserve: the owner's and each split merchant's share leave their
 * available balance (available → reserved), so nobody can withdraw the money being returned.
 * Completion: the reserved shares and the platform's fee share go out to the payer (→ provider
 * clearing). Release (the provider refused): the reserved shares go back. The fee share is not
 * reserved: the platform keeps every fee it received, so it always covers its share.
 */
export interface RefundMoney {
  refundId: string;
  merchantId: string;
  amountCents: number;
  shares: { ownerCents: number; feeCents: number; splits: { merchantId: string; amountCents: number }[] };
}

function reservedParts(r: RefundMoney): Posting[] {
  return [
    { accountCode: accounts.merchantReserved(r.merchantId), amountCents: r.shares.ownerCents },
    ...r.shares.splits.map((s) => ({
      accountCode: accounts.merchantReserved(s.merchantId),
      amountCents: s.amountCents,
    })),
  ];
}

function checkRefund(r: RefundMoney): void {
  const sum = r.shares.ownerCents + r.shares.feeCents + r.shares.splits.reduce((a, s) => a + s.amountCents, 0);
  if (sum !== r.amountCents) throw new Error(`refund shares sum to ${sum}, not ${r.amountCents}`);
}

export function refundReservedEntry(r: RefundMoney): LedgerEntry {
  checkRefund(r);
  const postings = compact([
    ...reservedParts(r),
    { accountCode: accounts.merchantAvailable(r.merchantId), amountCents: -r.shares.ownerCents },
    ...r.shares.splits.map((s) => ({
      accountCode: accounts.merchantAvailable(s.merchantId),
      amountCents: -s.amountCents,
    })),
  ]);
  assertBalanced(postings);
  return {
    movementKey: `refund-reserve:${r.refundId}`,
    kind: 'REFUND_RESERVED',
    referenceType: 'refund',
    referenceId: r.refundId,
    postings,
  };
}

export function refundCompletedEntry(r: RefundMoney): LedgerEntry {
  checkRefund(r);
  const postings = compact([
    ...reservedParts(r).map((p) => ({ ...p, amountCents: -p.amountCents })),
    { accountCode: accounts.platformFees, amountCents: -r.shares.feeCents },
    { accountCode: accounts.providerClearing, amountCents: r.amountCents },
  ]);
  assertBalanced(postings);
  return {
    movementKey: `refund-complete:${r.refundId}`,
    kind: 'REFUND_COMPLETED',
    referenceType: 'refund',
    referenceId: r.refundId,
    postings,
  };
}

export function refundReleasedEntry(r: RefundMoney): LedgerEntry {
  checkRefund(r);
  const postings = compact([
    ...reservedParts(r).map((p) => ({ ...p, amountCents: -p.amountCents })),
    { accountCode: accounts.merchantAvailable(r.merchantId), amountCents: r.shares.ownerCents },
    ...r.shares.splits.map((s) => ({
      accountCode: accounts.merchantAvailable(s.merchantId),
      amountCents: s.amountCents,
    })),
  ]);
  assertBalanced(postings);
  return {
    movementKey: `refund-release:${r.refundId}`,
    kind: 'REFUND_RELEASED',
    referenceType: 'refund',
    referenceId: r.refundId,
    postings,
  };
}

/**
 * Pix infraction (MED): the disputed money leaves the merchant's available balance while the
 * infraction is open (block), and comes back when it is rejected or its devolução cannot be made
 * (unblock). An accepted infraction's block is unblocked in the same DB transaction that reserves
 * its refund (activities/refunds/refunds.ts), so the money is never withdrawable in between. One block
 * and one unblock per infraction, keyed by its id.
 */
export function medBlockEntry(m: { infractionId: string; merchantId: string; amountCents: number }): LedgerEntry {
  const postings = [
    { accountCode: accounts.merchantAvailable(m.merchantId), amountCents: -m.amountCents },
    { accountCode: accounts.merchantBlocked(m.merchantId), amountCents: m.amountCents },
  ];
  assertBalanced(postings);
  return {
    movementKey: `med-block:${m.infractionId}`,
    kind: 'MED_BLOCKED',
    referenceType: 'med_infraction',
    referenceId: m.infractionId,
    postings,
  };
}

export function medUnblockEntry(m: { infractionId: string; merchantId: string; amountCents: number }): LedgerEntry {
  const postings = [
    { accountCode: accounts.merchantBlocked(m.merchantId), amountCents: -m.amountCents },
    { accountCode: accounts.merchantAvailable(m.merchantId), amountCents: m.amountCents },
  ];
  assertBalanced(postings);
  return {
    movementKey: `med-unblock:${m.infractionId}`,
    kind: 'MED_UNBLOCKED',
    referenceType: 'med_infraction',
    referenceId: m.infractionId,
    postings,
  };
}

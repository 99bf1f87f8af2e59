/**
 * Ledger rules of payout batches. The merchant funds amount + fee per item (the fee is charged
 * on top; the recipient receives the full amount):
 *   reserve    available → reserved                      (whole batch, at creation)
 *   item paid  reserved → provider clearing (amount), reserved → platform fees (fee)
 *   item failed / cancelled  reserved → available       (amount + fee)
 */
import { accounts } from './accounts';
import { assertBalanced, type LedgerEntry } from './postings';

function entry(e: LedgerEntry): LedgerEntry {
  e.postings = e.postings.filter((p) => p.amountCents !== 0);
  assertBalanced(e.postings);
  return e;
}

export function payoutReserveEntry(batchId: string, merchantId: string, fundingCents: number): LedgerEntry {
  return entry({
    movementKey: `payout-reserve:${batchId}`,
    kind: 'PAYOUT_RESERVE',
    referenceType: 'payout_batch',
    referenceId: batchId,
    postings: [
      { accountCode: accounts.merchantAvailable(merchantId), amountCents: -fundingCents },
      { accountCode: accounts.merchantReserved(merchantId), amountCents: fundingCents },
    ],
  });
}

export function payoutItemPaidEntry(
  itemId: string,
  merchantId: string,
  amountCents: number,
  feeCents: number,
): LedgerEntry {
  return entry({
    movementKey: `payout-item-paid:${itemId}`,
    kind: 'PAYOUT_ITEM_PAID',
    referenceType: 'payout_item',
    referenceId: itemId,
    postings: [
      { accountCode: accounts.merchantReserved(merchantId), amountCents: -(amountCents + feeCents) },
      { accountCode: accounts.providerClearing, amountCents },
      { accountCode: accounts.platformFees, amountCents: feeCents },
    ],
  });
}

export function payoutItemReleasedEntry(itemId: string, merchantId: string, fundingCents: number): LedgerEntry {
  return entry({
    movementKey: `payout-item-released:${itemId}`,
    kind: 'PAYOUT_ITEM_RELEASED',
    referenceType: 'payout_item',
    referenceId: itemId,
    postings: [
      { accountCode: accounts.merchantReserved(merchantId), amountCents: -fundingCents },
      { accountCode: accounts.merchantAvailable(merchantId), amountCents: fundingCents },
    ],
  });
}

/** One entry for every item a cancel stopped before it was sent. */
export function payoutBatchCancelReleaseEntry(batchId: string, merchantId: string, fundingCents: number): LedgerEntry {
  return entry({
    movementKey: `payout-cancel-release:${batchId}`,
    kind: 'PAYOUT_CANCEL_RELEASE',
    referenceType: 'payout_batch',
    referenceId: batchId,
    postings: [
      { accountCode: accounts.merchantReserved(merchantId), amountCents: -fundingCents },
      { accountCode: accounts.merchantAvailable(merchantId), amountCents: fundingCents },
    ],
  });
}

/**
 * The payout activities only chunks started before patch 'payout-sliced-payments' call
 * (workflows/payouts/payoutChunk.ts, payOneByOne: one activity per item): listChunkItemIds and
 * payItem. Newer chunks pay slices with payItems, which runs the same claim, send and settle steps
 * for many items.
 *
 * Delete this file with payOneByOne, once no payoutChunk run started before the patch can be
 * open (docs/architecture.md, "Workflow history"). When: the patch's commit date plus the longest
 * life of a payout batch. The patch was committed 2026-11-25 (8c8e59d:
 * `git log -S "'payout-sliced-payments'"`); a batch that never parks runs for hours at most
 * (docs/architecture.md), so: not before 2026-11-26, counted from the deployment that carried
 * 8c8e59d if that came later. A batch parked on a frozen merchant or a short PSP balance waits
 * with no bound, so first check that
 * `temporal workflow list --query "WorkflowType='payoutChunk' AND ExecutionStatus='Running' AND StartTime < '<that deployment>'"`
 * finds none.
 */
import { claimItems } from './claimItems';
import { unsettledRows } from './chunkItems';
import type { PayoutDeps } from './deps';
import type { ItemOutcome } from './resolveItem';
import { sendItem } from './sendItem';
import { markUnconfirmed, settleItems } from './settleItems';

export async function listChunkItemIds(
  deps: Pick<PayoutDeps, 'sequelize'>,
  args: { batchId: string; fromRow: number; toRow: number },
): Promise<string[]> {
  return (await unsettledRows(deps, args)).map((r) => r.id);
}

/**
 * Pays one item through the one transfer path. Returns its final status; SKIPPED when it was
 * already settled or cancelled; PARKED when the merchant may not pay out now (frozen,
 * inactive, payouts disabled) and the item was not sent; UNCONFIRMED when the provider refused
 * the call and has no record yet — the caller waits TRANSFER_GRACE, then calls `resolveItem`.
 */
export async function payItem(deps: PayoutDeps, args: { itemId: string }): Promise<ItemOutcome> {
  const claim = await claimItems(deps, { itemIds: [args.itemId] });
  const [item] = claim.claimed;
  if (!item) return claim.parked ? 'PARKED' : 'SKIPPED';
  const sent = await sendItem(deps, item);
  if (sent.kind === 'UNCONFIRMED') {
    await markUnconfirmed(deps, [{ itemId: item.id, code: sent.code }]);
    return 'UNCONFIRMED';
  }
  return (await settleItems(deps, [{ itemId: item.id, decision: sent }])).get(item.id) ?? 'SKIPPED';
}

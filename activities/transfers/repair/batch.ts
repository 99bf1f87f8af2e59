import { ApplicationFailure } from '@temporalio/activity';
import { TRANSFER_GRACE } from '../../../core/transfers/failures';
import { payoutStore } from '../../../db/payouts';
import { finishBatch } from '../../payouts/finish';
import { resolveItem } from '../../payouts/resolveItem';
import type { RepairDeps } from './deps';
import { ReconcileFailureTypes, untouched, type ReconcileSummary } from './summary';

const RECONCILED_REASON = 'its workflow stopped; unsent items released by reconciliation';

/** Reconciles batch `batchId`; the caller made sure its workflow is not running. */
export async function reconcileBatch(deps: RepairDeps, batchId: string): Promise<ReconcileSummary> {
  const batch = await payoutStore.findBatch(batchId);
  if (!batch)
    throw ApplicationFailure.nonRetryable(`payout batch ${batchId} not found`, ReconcileFailureTypes.notFound);
  const summary = untouched('payout-batch', batchId, batch.status);
  if (batch.status !== 'PROCESSING') return summary;
  const sending = await payoutStore.sendingItemsWithGrace(deps.sequelize, batchId, TRANSFER_GRACE);
  for (const item of sending) {
    // Within the grace period only a provider record settles; resolveItem looks it up again.
    if (
      !item.grace_passed &&
      !(await deps.transfers.lookup({ reference: item.id, amountCents: Number(item.amount_cents) }))
    ) {
      summary.waiting++;
      continue;
    }
    const outcome = await resolveItem(deps, { itemId: item.id });
    if (outcome === 'PAID') summary.paid++;
    else if (outcome === 'FAILED') summary.released++;
  }
  if (summary.waiting > 0) return summary;
  const finished = await finishBatch(deps, { batchId, cancelReason: null, unsentReason: RECONCILED_REASON });
  return { ...summary, status: finished.status, releasedAmountCents: finished.releasedAmountCents };
}

/** A batch's end: every item still PENDING cancelled and released in one entry, the final status, payout.batch.completed. */
import { ApplicationFailure } from '@temporalio/activity';
import type { Transaction } from 'sequelize';
import { movements, release } from '../../core/ledger/postings';
import { payoutStore, type PayoutBatch } from '../../db/payouts';
import type { FinalBatchStatus } from '../../workflows/payouts/types';
import { writeLedgerEntry } from '../ledger/ledgerWriter';
import { recordEvent } from '../events/outbox';
import { itemCounts, lockBatch } from './batchRows';
import type { PayoutDeps } from './deps';

/** Why unsent items were cancelled when nobody asked for a cancel: their chunk stopped early. */
const UNSENT_REASON = 'a payout chunk stopped before sending every item (cancelled or stopped in Temporal)';

/** Items that may have reached the provider: the provider's record settles each (resolveItem). */
export async function listSendingItemIds(args: { batchId: string }): Promise<string[]> {
  return payoutStore.sendingItemIds(args.batchId);
}

/**
 * Ends the batch once no item is SENDING. Every item still PENDING was never sent and never
 * will be (its chunk stopped: the batch was cancelled, or an operator stopped the chunk): it is
 * CANCELLED and its funding released in one ledger entry. The cancel reason is the one the
 * cancel route recorded on the row, else the caller's (a cancel from Temporal), else
 * `unsentReason` when unsent items were found.
 */
export async function finishBatch(
  deps: Pick<PayoutDeps, 'sequelize'>,
  args: { batchId: string; cancelReason: string | null; unsentReason?: string },
): Promise<{ status: FinalBatchStatus; releasedAmountCents: number }> {
  const { sequelize } = deps;
  return sequelize.transaction(async (transaction) => {
    const batch = await lockBatch(args.batchId, transaction);
    if (batch.status !== 'PROCESSING')
      return { status: batch.status as FinalBatchStatus, releasedAmountCents: batch.releasedAmountCents };
    const sending = (await itemCounts(sequelize, batch.id, transaction)).SENDING;
    if (sending > 0) {
      // Never finish a batch with a transfer whose outcome is unknown: retrying keeps it
      // PROCESSING (money stays reserved, visible as a retrying activity in the Web UI).
      throw ApplicationFailure.retryable(`${sending} items are not settled yet`, 'BatchIncomplete');
    }
    const row = await payoutStore.cancelPendingItems(sequelize, batch.id, transaction);
    const released = Number(row?.sum ?? 0);
    if (released > 0)
      await writeLedgerEntry(
        sequelize,
        release(movements.payoutBatch(batch.id).releaseUnsent, [{ merchantId: batch.merchantId, cents: released }]),
        transaction,
      );
    const cancelReason =
      batch.cancelReason ?? args.cancelReason ?? ((row?.n ?? 0) > 0 ? (args.unsentReason ?? UNSENT_REASON) : null);
    const counts = await itemCounts(sequelize, batch.id, transaction);
    const status = finalStatus(cancelReason, counts);
    await payoutStore.updateBatch(
      batch,
      { status, completedAt: new Date(), cancelReason, releasedAmountCents: released },
      transaction,
    );
    await recordBatchCompleted(batch, { status, counts, released }, transaction);
    return { status, releasedAmountCents: released };
  });
}

function finalStatus(cancelReason: string | null, counts: Record<string, number>): FinalBatchStatus {
  if (cancelReason !== null) return 'CANCELLED';
  if (counts.FAILED === 0) return 'COMPLETED';
  return counts.PAID === 0 ? 'FAILED' : 'COMPLETED_WITH_FAILURES';
}

async function recordBatchCompleted(
  batch: PayoutBatch,
  end: { status: FinalBatchStatus; counts: Record<string, number>; released: number },
  transaction: Transaction,
): Promise<void> {
  await recordEvent(
    {
      type: 'payout.batch.completed',
      merchantId: batch.merchantId,
      aggregateType: 'payout_batch',
      aggregateId: batch.id,
      payload: {
        id: batch.id,
        status: end.status,
        paidItems: end.counts.PAID,
        failedItems: end.counts.FAILED,
        cancelledItems: end.counts.CANCELLED,
        releasedAmountCents: end.released,
      },
    },
    transaction,
  );
}

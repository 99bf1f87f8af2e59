/**
 * Payout activities. Exactly-once rests on three keys: the item's status moves only forward
 * under row-level conditions, the provider transfer carries the item id as idempotency key, and
 * each ledger movement has a unique key. A retried or re-run activity changes nothing twice.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { ProviderError, type PixKeyType, type PixProvider, type ProviderTransfer } from '../core/provider';
import {
  payoutBatchCancelReleaseEntry,
  payoutItemPaidEntry,
  payoutItemReleasedEntry,
  payoutReserveEntry,
} from '../core/ledger/payoutPostings';
import { PayoutBatch, PayoutItem } from '../db/models';
import { PayoutFailureTypes, type BatchReservation, type FinalBatchStatus } from '../workflows/payout/types';
import { InsufficientBalanceError, writeLedgerEntry } from './db/ledgerWriter';
import { recordEvent } from './db/outbox';

export interface PayoutActivityDeps {
  sequelize: Sequelize;
  provider: PixProvider;
}

export function createPayoutActivities(deps: PayoutActivityDeps) {
  const { sequelize, provider } = deps;

  async function reserveBatch(args: { batchId: string }): Promise<BatchReservation> {
    try {
      return await sequelize.transaction(async (transaction) => {
        const batch = await lockBatch(args.batchId, transaction);
        const funding = batch.totalAmountCents + batch.totalFeeCents;
        if (batch.status === 'CREATED') {
          await writeLedgerEntry(sequelize, payoutReserveEntry(batch.id, batch.merchantId, funding), transaction);
          await batch.update({ status: 'PROCESSING' }, { transaction });
        }
        return {
          batchId: batch.id,
          status: 'PROCESSING' as const,
          totalAmountCents: batch.totalAmountCents,
          totalFeeCents: batch.totalFeeCents,
          totalFundingCents: funding,
          itemsCount: batch.itemsCount,
        };
      });
    } catch (err) {
      if (!(err instanceof InsufficientBalanceError)) throw err;
      // Nothing was reserved: remove the staged batch so no trace of it stays, and free its key.
      await PayoutBatch.destroy({ where: { id: args.batchId, status: 'CREATED' } });
      throw ApplicationFailure.nonRetryable('available balance cannot fund the batch', PayoutFailureTypes.insufficientBalance);
    }
  }

  async function listChunkItemIds(args: { batchId: string; fromRow: number; toRow: number }): Promise<string[]> {
    const rows = await sequelize.query<{ id: string }>(
      `SELECT id FROM payout_items WHERE batch_id = :batchId AND row_index BETWEEN :fromRow AND :toRow
       AND status IN ('PENDING','SENDING') ORDER BY row_index`,
      { replacements: args, type: QueryTypes.SELECT },
    );
    return rows.map((r) => r.id);
  }

  /** Pays one item. Returns its final status, or SKIPPED when it was already settled or cancelled. */
  async function payItem(args: { itemId: string }): Promise<'PAID' | 'FAILED' | 'SKIPPED'> {
    const [claimed] = await sequelize.query<{ id: string }>(
      `UPDATE payout_items SET status = 'SENDING', attempts = attempts + 1, updated_at = now()
       WHERE id = :itemId AND status IN ('PENDING','SENDING') RETURNING id`,
      { replacements: args, type: QueryTypes.SELECT },
    );
    if (!claimed) return 'SKIPPED';
    const item = (await PayoutItem.findByPk(args.itemId)) as PayoutItem;
    let transfer: ProviderTransfer;
    try {
      transfer = await provider.transfer({
        reference: item.id,
        amountCents: item.amountCents,
        pixKey: item.pixKey,
        pixKeyType: item.pixKeyType as PixKeyType,
        recipientName: item.recipientName,
        recipientDocument: item.recipientDocument,
      });
    } catch (err) {
      if (err instanceof ProviderError && err.transient) {
        await item.update({ lastError: err.message.slice(0, 500), lastErrorCode: err.code });
        throw ApplicationFailure.retryable(err.message, 'ProviderUnavailable');
      }
      if (err instanceof ProviderError) {
        transfer = failedTransfer(item.id, err.code, err.message);
      } else {
        throw err;
      }
    }
    return settleItem(item.id, transfer);
  }

  async function settleItem(itemId: string, transfer: ProviderTransfer): Promise<'PAID' | 'FAILED' | 'SKIPPED'> {
    return sequelize.transaction(async (transaction) => {
      const item = await PayoutItem.findByPk(itemId, { transaction, lock: transaction.LOCK.UPDATE });
      if (!item || item.status !== 'SENDING') return 'SKIPPED';
      const now = new Date();
      const outcome: 'PAID' | 'FAILED' = transfer.status === 'COMPLETED' ? 'PAID' : 'FAILED';
      if (outcome === 'PAID') {
        await writeLedgerEntry(sequelize, payoutItemPaidEntry(item.id, item.merchantId, item.amountCents, item.feeCents), transaction);
        await item.update(
          { status: 'PAID', settledAt: now, providerTransferId: transfer.id, endToEndId: transfer.endToEndId, lastError: null, lastErrorCode: null },
          { transaction },
        );
      } else {
        await writeLedgerEntry(sequelize, payoutItemReleasedEntry(item.id, item.merchantId, item.amountCents + item.feeCents), transaction);
        await item.update(
          {
            status: 'FAILED',
            releasedAt: now,
            providerTransferId: transfer.id || null,
            lastError: transfer.failureReason ?? 'transfer failed',
            lastErrorCode: transfer.failureCode ?? 'TRANSFER_FAILED',
          },
          { transaction },
        );
      }
      await recordEvent(
        {
          type: outcome === 'PAID' ? 'payout.item.paid' : 'payout.item.failed',
          merchantId: item.merchantId,
          aggregateType: 'payout_item',
          aggregateId: item.id,
          payload: { id: item.id, batchId: item.batchId, status: outcome, amountCents: item.amountCents, referenceId: item.referenceId },
        },
        transaction,
      );
      return outcome;
    });
  }

  /**
   * Ends the batch. With a cancel reason, every item not yet sent is CANCELLED and its funding
   * released in one ledger entry; items already sent were settled by their own activities.
   */
  async function finishBatch(args: { batchId: string; cancelReason: string | null }): Promise<{ status: FinalBatchStatus; releasedAmountCents: number }> {
    return sequelize.transaction(async (transaction) => {
      const batch = await lockBatch(args.batchId, transaction);
      if (batch.status !== 'PROCESSING') return { status: batch.status as FinalBatchStatus, releasedAmountCents: batch.releasedAmountCents };
      let released = 0;
      if (args.cancelReason !== null) {
        const [row] = await sequelize.query<{ sum: string | null }>(
          `WITH cancelled AS (
             UPDATE payout_items SET status = 'CANCELLED', released_at = now(), updated_at = now()
             WHERE batch_id = :batchId AND status = 'PENDING' RETURNING amount_cents + fee_cents AS funding)
           SELECT SUM(funding) AS sum FROM cancelled`,
          { replacements: { batchId: batch.id }, type: QueryTypes.SELECT, transaction },
        );
        released = Number(row?.sum ?? 0);
        if (released > 0) await writeLedgerEntry(sequelize, payoutBatchCancelReleaseEntry(batch.id, batch.merchantId, released), transaction);
      }
      const counts = await itemCounts(batch.id, transaction);
      if (counts.PENDING + counts.SENDING > 0) {
        // Never finish a batch with unsettled items: retrying keeps it PROCESSING (money stays
        // reserved, visible as a retrying activity in the Web UI) instead of losing track.
        throw ApplicationFailure.retryable(`${counts.PENDING + counts.SENDING} items are not settled yet`, 'BatchIncomplete');
      }
      const status: FinalBatchStatus =
        args.cancelReason !== null ? 'CANCELLED' : counts.FAILED === 0 ? 'COMPLETED' : counts.PAID === 0 ? 'FAILED' : 'COMPLETED_WITH_FAILURES';
      await batch.update({ status, completedAt: new Date(), cancelReason: args.cancelReason, releasedAmountCents: released }, { transaction });
      await recordEvent(
        {
          type: 'payout.batch.completed',
          merchantId: batch.merchantId,
          aggregateType: 'payout_batch',
          aggregateId: batch.id,
          payload: { id: batch.id, status, paidItems: counts.PAID, failedItems: counts.FAILED, cancelledItems: counts.CANCELLED, releasedAmountCents: released },
        },
        transaction,
      );
      return { status, releasedAmountCents: released };
    });
  }

  async function lockBatch(batchId: string, transaction: Transaction): Promise<PayoutBatch> {
    const batch = await PayoutBatch.findByPk(batchId, { transaction, lock: transaction.LOCK.UPDATE });
    if (!batch) throw ApplicationFailure.nonRetryable(`payout batch ${batchId} not found`, PayoutFailureTypes.batchNotFound);
    return batch;
  }

  async function itemCounts(batchId: string, transaction: Transaction): Promise<Record<string, number>> {
    const rows = await sequelize.query<{ status: string; n: number }>(
      `SELECT status, count(*)::int AS n FROM payout_items WHERE batch_id = :batchId GROUP BY status`,
      { replacements: { batchId }, type: QueryTypes.SELECT, transaction },
    );
    const counts: Record<string, number> = { PENDING: 0, SENDING: 0, PAID: 0, FAILED: 0, CANCELLED: 0 };
    for (const r of rows) counts[r.status] = r.n;
    return counts;
  }

  return { reserveBatch, listChunkItemIds, payItem, finishBatch };
}

export type PayoutActivities = ReturnType<typeof createPayoutActivities>;

function failedTransfer(reference: string, code: string, message: string): ProviderTransfer {
  return {
    id: '',
    reference,
    status: 'FAILED',
    amountCents: 0,
    pixKey: '',
    pixKeyType: 'EVP',
    recipientName: '',
    endToEndId: null,
    failureCode: code,
    failureReason: message.slice(0, 500),
    createdAt: new Date().toISOString(),
  };
}

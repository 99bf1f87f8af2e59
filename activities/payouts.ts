/**
 * Payout activities. Exactly-once rests on three keys: the item's status moves only forward
 * under row-level conditions, the provider transfer carries the item id as idempotency key, and
 * each ledger movement has a unique key. A retried or re-run activity changes nothing twice.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { PixKeyType, PixProvider } from '../core/provider';
import { TRANSFER_NOT_ACCEPTED, describeTransferFailure } from '../core/transferFailures';
import { payoutRefusal, type PayoutRefusal } from '../core/payouts/refusal';
import {
  payoutBatchCancelReleaseEntry,
  payoutItemPaidEntry,
  payoutItemReleasedEntry,
  payoutReserveEntry,
} from '../core/ledger/payoutPostings';
import { Merchant, PayoutBatch, PayoutItem } from '../db/models';
import { PayoutFailureTypes, type BatchReservation, type FinalBatchStatus } from '../workflows/payout/types';
import { InsufficientBalanceError, writeLedgerEntry } from './db/ledgerWriter';
import { recordEvent } from './db/outbox';
import { createTransferPath, type TransferAnswer } from './transferPath';

/** What became of one item in one call; see payItem. */
class PayoutRefused extends Error {
  constructor(readonly refusal: PayoutRefusal) {
    super(refusal);
  }
}

/** Why unsent items were cancelled when nobody asked for a cancel: their chunk stopped early. */
const UNSENT_REASON = 'a payout chunk stopped before sending every item (cancelled or stopped in Temporal)';

export type ItemOutcome = 'PAID' | 'FAILED' | 'SKIPPED' | 'PARKED' | 'UNCONFIRMED';

export interface PayoutActivityDeps {
  sequelize: Sequelize;
  provider: PixProvider;
}

export function createPayoutActivities(deps: PayoutActivityDeps) {
  const { sequelize, provider } = deps;
  const transfers = createTransferPath(provider);

  async function reserveBatch(args: { batchId: string }): Promise<BatchReservation> {
    try {
      return await sequelize.transaction(async (transaction) => {
        const batch = await lockBatch(args.batchId, transaction);
        const funding = batch.totalAmountCents + batch.totalFeeCents;
        if (batch.status === 'CREATED') {
          // Locked so an operator's freeze or deactivation lands wholly before or after this reserve.
          const merchant = await Merchant.findByPk(batch.merchantId, { transaction, lock: transaction.LOCK.UPDATE });
          const refusal = merchant ? payoutRefusal(merchant) : 'MERCHANT_INACTIVE';
          if (refusal) throw new PayoutRefused(refusal);
          await writeLedgerEntry(sequelize, payoutReserveEntry(batch.id, batch.merchantId, funding), transaction);
          await batch.update({ status: 'PROCESSING' }, { transaction });
        }
        return reservationOf(batch);
      });
    } catch (err) {
      if (!(err instanceof InsufficientBalanceError) && !(err instanceof PayoutRefused)) throw err;
      // Nothing was reserved: remove the staged batch so no trace of it stays, and free its key.
      await PayoutBatch.destroy({ where: { id: args.batchId, status: 'CREATED' } });
      if (err instanceof PayoutRefused) throw ApplicationFailure.nonRetryable(`the merchant may not pay out: ${err.refusal}`, PayoutFailureTypes.refused, err.refusal);
      throw ApplicationFailure.nonRetryable('available balance cannot fund the batch', PayoutFailureTypes.insufficientBalance);
    }
  }

  /**
   * Makes a given-up reserve final: under the batch row lock (which a late reserve attempt takes
   * first too), a batch already reserved is reported as such; one still CREATED is removed, so no
   * late attempt can reserve it after the client was told nothing was reserved.
   */
  async function abandonReserve(args: { batchId: string }): Promise<BatchReservation | null> {
    return sequelize.transaction(async (transaction) => {
      const batch = await PayoutBatch.findByPk(args.batchId, { transaction, lock: transaction.LOCK.UPDATE });
      if (!batch) return null;
      if (batch.status === 'CREATED') {
        await batch.destroy({ transaction });
        return null;
      }
      return reservationOf(batch);
    });
  }

  async function listChunkItemIds(args: { batchId: string; fromRow: number; toRow: number }): Promise<string[]> {
    const rows = await sequelize.query<{ id: string }>(
      `SELECT id FROM payout_items WHERE batch_id = :batchId AND row_index BETWEEN :fromRow AND :toRow
       AND status IN ('PENDING','SENDING') ORDER BY row_index`,
      { replacements: args, type: QueryTypes.SELECT },
    );
    return rows.map((r) => r.id);
  }

  /**
   * Pays one item through the one transfer path. Returns its final status; SKIPPED when it was
   * already settled or cancelled; PARKED when the merchant may not pay out now (frozen,
   * inactive, payouts disabled) and the item was not sent; UNCONFIRMED when the provider refused
   * the call and has no record yet — the caller waits TRANSFER_GRACE, then calls `resolveItem`.
   */
  async function payItem(args: { itemId: string }): Promise<ItemOutcome> {
    const claim = await claimItem(args.itemId);
    if (claim === 'SKIPPED' || claim === 'PARKED') return claim;
    const { item, attempts } = claim;
    const answer = await transfers.send(
      {
        reference: item.id,
        amountCents: item.amountCents,
        pixKey: item.pixKey,
        pixKeyType: item.pixKeyType as PixKeyType,
        recipientName: item.recipientName,
        recipientDocument: item.recipientDocument,
      },
      // A later attempt may follow one whose answer was lost: the provider's record comes first.
      { retry: attempts > 1 },
    );
    if (answer.kind === 'NO_RECORD') {
      await PayoutItem.update({ lastErrorCode: answer.code, lastError: describeTransferFailure(TRANSFER_NOT_ACCEPTED.code).reason }, { where: { id: item.id } });
      return 'UNCONFIRMED';
    }
    return settleItem(item.id, answer);
  }

  /** After the grace period: the provider's record decides; with none, nothing was paid and the funding goes back. */
  async function resolveItem(args: { itemId: string }): Promise<ItemOutcome> {
    const item = await PayoutItem.findByPk(args.itemId);
    if (!item || item.status !== 'SENDING') return 'SKIPPED';
    const answer = await transfers.lookup({ reference: item.id, amountCents: item.amountCents });
    return settleItem(item.id, answer ?? { kind: 'NO_RECORD', code: TRANSFER_NOT_ACCEPTED.code });
  }

  /**
   * Marks the item SENDING before anything is sent. Under a share lock on the merchant row, so an
   * operator's freeze (which updates that row) lands wholly before or after: once it committed,
   * no item of the merchant is claimed for a first send. An item already SENDING (a retry) may
   * have reached the provider: it is always followed through.
   */
  async function claimItem(itemId: string): Promise<'SKIPPED' | 'PARKED' | { item: PayoutItem; attempts: number }> {
    return sequelize.transaction(async (transaction) => {
      const item = await PayoutItem.findByPk(itemId, { transaction, lock: transaction.LOCK.UPDATE });
      if (!item || (item.status !== 'PENDING' && item.status !== 'SENDING')) return 'SKIPPED';
      if (item.status === 'PENDING') {
        const merchant = await Merchant.findByPk(item.merchantId, { transaction, lock: transaction.LOCK.SHARE });
        if (!merchant || payoutRefusal(merchant)) return 'PARKED';
      }
      await item.update({ status: 'SENDING', attempts: item.attempts + 1 }, { transaction });
      return { item, attempts: item.attempts };
    });
  }

  /** Records the provider's answer: PAID (money left), or FAILED with the funding released. */
  async function settleItem(itemId: string, answer: TransferAnswer): Promise<ItemOutcome> {
    return sequelize.transaction(async (transaction) => {
      const item = await PayoutItem.findByPk(itemId, { transaction, lock: transaction.LOCK.UPDATE });
      if (!item || item.status !== 'SENDING') return 'SKIPPED';
      const now = new Date();
      const outcome: 'PAID' | 'FAILED' = answer.kind === 'COMPLETED' ? 'PAID' : 'FAILED';
      if (answer.kind === 'COMPLETED') {
        await writeLedgerEntry(sequelize, payoutItemPaidEntry(item.id, item.merchantId, item.amountCents, item.feeCents), transaction);
        await item.update(
          { status: 'PAID', settledAt: now, providerTransferId: answer.transfer.id, endToEndId: answer.transfer.endToEndId, lastError: null, lastErrorCode: null },
          { transaction },
        );
      } else {
        const failure =
          answer.kind === 'REFUSED' ? describeTransferFailure(answer.transfer.failureCode) : TRANSFER_NOT_ACCEPTED;
        await writeLedgerEntry(sequelize, payoutItemReleasedEntry(item.id, item.merchantId, item.amountCents + item.feeCents), transaction);
        await item.update(
          {
            status: 'FAILED',
            releasedAt: now,
            providerTransferId: answer.kind === 'REFUSED' ? answer.transfer.id : null,
            lastError: failure.reason,
            lastErrorCode: failure.code,
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
   * The cancel route's intent, recorded on the batch row before the workflow stops anything:
   * finishBatch reads it from there, so a finish already scheduled (or retrying) still sees it.
   * The first reason wins; a batch no longer PROCESSING is left as it is.
   */
  async function recordCancelIntent(args: { batchId: string; reason: string }): Promise<void> {
    await PayoutBatch.update({ cancelReason: args.reason }, { where: { id: args.batchId, status: 'PROCESSING', cancelReason: null } });
  }

  /** Items that may have reached the provider: the provider's record settles each (resolveItem). */
  async function listSendingItemIds(args: { batchId: string }): Promise<string[]> {
    const rows = await PayoutItem.findAll({ attributes: ['id'], where: { batchId: args.batchId, status: 'SENDING' }, order: [['rowIndex', 'ASC']] });
    return rows.map((r) => r.id);
  }

  /**
   * Ends the batch once no item is SENDING. Every item still PENDING was never sent and never
   * will be (its chunk stopped: the batch was cancelled, or an operator stopped the chunk): it is
   * CANCELLED and its funding released in one ledger entry. The cancel reason is the one the
   * cancel route recorded on the row, else the caller's (a cancel from Temporal), else
   * `unsentReason` when unsent items were found.
   */
  async function finishBatch(args: { batchId: string; cancelReason: string | null; unsentReason?: string }): Promise<{ status: FinalBatchStatus; releasedAmountCents: number }> {
    return sequelize.transaction(async (transaction) => {
      const batch = await lockBatch(args.batchId, transaction);
      if (batch.status !== 'PROCESSING') return { status: batch.status as FinalBatchStatus, releasedAmountCents: batch.releasedAmountCents };
      const sending = (await itemCounts(batch.id, transaction)).SENDING;
      if (sending > 0) {
        // Never finish a batch with a transfer whose outcome is unknown: retrying keeps it
        // PROCESSING (money stays reserved, visible as a retrying activity in the Web UI).
        throw ApplicationFailure.retryable(`${sending} items are not settled yet`, 'BatchIncomplete');
      }
      const [row] = await sequelize.query<{ n: number; sum: string | null }>(
        `WITH cancelled AS (
           UPDATE payout_items SET status = 'CANCELLED', released_at = now(), updated_at = now()
           WHERE batch_id = :batchId AND status = 'PENDING' RETURNING amount_cents + fee_cents AS funding)
         SELECT count(*)::int AS n, SUM(funding) AS sum FROM cancelled`,
        { replacements: { batchId: batch.id }, type: QueryTypes.SELECT, transaction },
      );
      const released = Number(row?.sum ?? 0);
      if (released > 0) await writeLedgerEntry(sequelize, payoutBatchCancelReleaseEntry(batch.id, batch.merchantId, released), transaction);
      const cancelReason = batch.cancelReason ?? args.cancelReason ?? ((row?.n ?? 0) > 0 ? (args.unsentReason ?? UNSENT_REASON) : null);
      const counts = await itemCounts(batch.id, transaction);
      const status: FinalBatchStatus =
        cancelReason !== null ? 'CANCELLED' : counts.FAILED === 0 ? 'COMPLETED' : counts.PAID === 0 ? 'FAILED' : 'COMPLETED_WITH_FAILURES';
      await batch.update({ status, completedAt: new Date(), cancelReason, releasedAmountCents: released }, { transaction });
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

  return { reserveBatch, abandonReserve, listChunkItemIds, payItem, resolveItem, recordCancelIntent, listSendingItemIds, finishBatch };
}

export type PayoutActivities = ReturnType<typeof createPayoutActivities>;

function reservationOf(batch: PayoutBatch): BatchReservation {
  return {
    batchId: batch.id,
    status: 'PROCESSING',
    totalAmountCents: batch.totalAmountCents,
    totalFeeCents: batch.totalFeeCents,
    totalFundingCents: batch.totalAmountCents + batch.totalFeeCents,
    itemsCount: batch.itemsCount,
  };
}

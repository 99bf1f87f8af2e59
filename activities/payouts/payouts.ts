/**
 * Payout activities. Exactly-once rests on three keys: the item's status moves only forward
 * under row-level conditions, the provider transfer carries the item id as idempotency key, and
 * each ledger movement has a unique key. A retried or re-run activity changes nothing twice.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { PixKeyType, PixProvider } from '../../core/provider';
import { TRANSFER_NOT_ACCEPTED, describeTransferFailure } from '../../core/transfers/failures';
import { payoutRefusal, type PayoutRefusal } from '../../core/payouts/refusal';
import {
  payoutBatchCancelReleaseEntry,
  payoutItemPaidEntry,
  payoutItemReleasedEntry,
  payoutReserveEntry,
} from '../../core/ledger/payoutPostings';
import { Merchant, PayoutBatch, PayoutItem } from '../../db/models';
import { PayoutFailureTypes, type BatchReservation, type FinalBatchStatus } from '../../workflows/payouts/types';
import { InsufficientBalanceError, writeLedgerEntries, writeLedgerEntry } from '../ledger/ledgerWriter';
import { recordEvent, recordEvents } from '../events/outbox';
import { TransferFailureTypes, createTransferPath, type TransferAnswer } from '../transfers/transferPath';

/** What became of one item in one call; see payItem. */
class PayoutRefused extends Error {
  constructor(readonly refusal: PayoutRefusal) {
    super(refusal);
  }
}

/** How long one payItems call starts new waves (a cancel from Temporal is seen between calls). */
const SLICE_BUDGET_MS = 2_000;

/** Waves of a slice sent but not yet settled, at most: bounds what a retry must look up at the provider. */
const MAX_UNSETTLED_WAVES = 4;

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
      if (err instanceof PayoutRefused)
        throw ApplicationFailure.nonRetryable(
          `the merchant may not pay out: ${err.refusal}`,
          PayoutFailureTypes.refused,
          err.refusal,
        );
      throw ApplicationFailure.nonRetryable(
        'available balance cannot fund the batch',
        PayoutFailureTypes.insufficientBalance,
      );
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

  /** The range's items still to pay (PENDING) or to follow through (SENDING), in row order. */
  async function unsettledRows(args: {
    batchId: string;
    fromRow: number;
    toRow: number;
  }): Promise<Array<{ id: string; row_index: number }>> {
    return sequelize.query<{ id: string; row_index: number }>(
      `SELECT id, row_index FROM payout_items WHERE batch_id = :batchId AND row_index BETWEEN :fromRow AND :toRow
       AND status IN ('PENDING','SENDING') ORDER BY row_index`,
      { replacements: { batchId: args.batchId, fromRow: args.fromRow, toRow: args.toRow }, type: QueryTypes.SELECT },
    );
  }

  async function listChunkItemIds(args: { batchId: string; fromRow: number; toRow: number }): Promise<string[]> {
    return (await unsettledRows(args)).map((r) => r.id);
  }

  /**
   * Pays one item through the one transfer path. Returns its final status; SKIPPED when it was
   * already settled or cancelled; PARKED when the merchant may not pay out now (frozen,
   * inactive, payouts disabled) and the item was not sent; UNCONFIRMED when the provider refused
   * the call and has no record yet — the caller waits TRANSFER_GRACE, then calls `resolveItem`.
   * (Chunks started before slices pay one item per activity; payItems is the same steps for many.)
   */
  async function payItem(args: { itemId: string }): Promise<ItemOutcome> {
    const claim = await claimItems({ itemIds: [args.itemId] });
    const [item] = claim.claimed;
    if (!item) return claim.parked ? 'PARKED' : 'SKIPPED';
    const answer = await send(item);
    if (answer.kind === 'NO_RECORD') {
      await markUnconfirmed([{ itemId: item.id, code: answer.code }]);
      return 'UNCONFIRMED';
    }
    return (await settleItems([{ itemId: item.id, answer }])).get(item.id) ?? 'SKIPPED';
  }

  /**
   * Pays the PENDING and SENDING items of one row range (a slice of a chunk) in waves of
   * `concurrency`: each wave is claimed in one transaction, its transfers sent at once (item id
   * as idempotency key, the provider asked first for an item an earlier attempt may have sent),
   * and its answers settled in one transaction. What stays per item: the claim before the send,
   * the key at the provider, the ledger movement key. A retry of this activity resumes from the
   * database: settled items are not picked again.
   *
   * Stops claiming when the merchant may not pay out (parked: true), or when the batch carries a
   * cancel intent. A transfer left unknown by a provider that did not answer is retried by
   * throwing at the end of the slice (Temporal's backoff), after every other item was settled.
   * Returns the items the provider refused to take and has no record of: the caller waits
   * TRANSFER_GRACE, then `resolveItem`s them; and, when it stopped starting waves after
   * SLICE_BUDGET_MS, the row to resume from (so a cancel from Temporal is seen within seconds
   * however large the slice).
   */
  async function payItems(args: {
    batchId: string;
    fromRow: number;
    toRow: number;
    concurrency: number;
  }): Promise<{ unconfirmed: string[]; parked: boolean; resumeFromRow: number | null }> {
    const rows = await unsettledRows(args);
    const heartbeat = activityHeartbeat();
    const size = Math.max(1, args.concurrency);
    const waves: Array<{ ids: string[]; fromRow: number }> = [];
    for (let i = 0; i < rows.length; i += size)
      waves.push({ ids: rows.slice(i, i + size).map((r) => r.id), fromRow: rows[i].row_index });
    // Past the budget no new wave starts: the chunk looks at a cancel from Temporal between calls.
    const budgetEnds = Date.now() + SLICE_BUDGET_MS;
    let resumeFromRow: number | null = null;
    const unconfirmed: string[] = [];
    let parked = false;
    let unavailable: unknown = null;
    let stopError: unknown = null;

    const sendWave = async (claimed: ClaimedItem[]) => {
      const answers: Array<{ itemId: string; answer: TransferAnswer }> = [];
      await Promise.all(
        claimed.map(async (item) => {
          try {
            answers.push({ itemId: item.id, answer: await send(item) });
          } catch (err) {
            // Not ours (reference or amount differ): stays SENDING with its funding reserved, alerted.
            if (err instanceof ApplicationFailure && err.type === TransferFailureTypes.mismatch) return;
            if (err instanceof ApplicationFailure && err.type === TransferFailureTypes.unavailable) unavailable ??= err;
            else stopError ??= err;
          } finally {
            heartbeat();
          }
        }),
      );
      return answers;
    };
    const settleWave = async (answers: Array<{ itemId: string; answer: TransferAnswer }>) => {
      const unknown = answers.filter(
        (a): a is { itemId: string; answer: Extract<TransferAnswer, { kind: 'NO_RECORD' }> } =>
          a.answer.kind === 'NO_RECORD',
      );
      await markUnconfirmed(unknown.map((a) => ({ itemId: a.itemId, code: a.answer.code })));
      unconfirmed.push(...unknown.map((a) => a.itemId));
      await settleItems(answers.filter((a) => a.answer.kind !== 'NO_RECORD'));
    };

    // A pipeline of three steps, so the database round trips overlap the transfers: while wave
    // w is at the provider, wave w+1 is being claimed, and the answers of the waves before are
    // settled, as many as have come in since the last settle, in one transaction (a settle
    // costs more than a wave of transfers, and the hot ledger rows are then taken once for all
    // of them). At most MAX_UNSETTLED_WAVES waves are sent and unsettled at once. A claimed item
    // is always sent; if this attempt dies, the next one follows it through (provider first).
    const unsettled: Array<{ itemId: string; answer: TransferAnswer }> = [];
    let settling: Promise<void> | null = null;
    const settleWhatCameIn = () => {
      if (settling !== null || unsettled.length === 0) return;
      settling = settleWave(unsettled.splice(0))
        .catch((err: unknown) => {
          stopError ??= err;
        })
        .finally(() => {
          settling = null;
          if (stopError === null) settleWhatCameIn();
        });
    };
    const settled = async () => {
      while (settling !== null) await settling;
    };
    let claiming = waves.length > 0 ? observed(claimItems({ itemIds: waves[0].ids, batchId: args.batchId })) : null;
    for (let w = 0; claiming !== null; w++) {
      const claim = await claiming;
      parked ||= claim.parked;
      const last = claim.parked || claim.cancelled || w + 1 >= waves.length;
      if (!last && Date.now() >= budgetEnds) resumeFromRow = waves[w + 1].fromRow;
      claiming =
        last || resumeFromRow !== null
          ? null
          : observed(claimItems({ itemIds: waves[w + 1].ids, batchId: args.batchId }));
      unsettled.push(...(await sendWave(claim.claimed)));
      settleWhatCameIn();
      if (unsettled.length >= MAX_UNSETTLED_WAVES * size) await settled();
      if (stopError !== null && claiming !== null) {
        // Stop here: what the next claim took stays SENDING, followed through by the retry.
        await claiming.catch((err: unknown) => (stopError ??= err));
        claiming = null;
      }
    }
    await settled();
    settleWhatCameIn();
    await settled();
    if (stopError !== null) throw stopError;
    if (unavailable !== null) throw unavailable;
    return { unconfirmed, parked, resumeFromRow };
  }

  /** The range's items by final status, for the chunk's result. */
  async function countChunkItems(args: {
    batchId: string;
    fromRow: number;
    toRow: number;
  }): Promise<{ paid: number; failed: number; skipped: number }> {
    const [row] = await sequelize.query<{ paid: number; failed: number; total: number }>(
      `SELECT count(*) FILTER (WHERE status = 'PAID')::int AS paid, count(*) FILTER (WHERE status = 'FAILED')::int AS failed, count(*)::int AS total
       FROM payout_items WHERE batch_id = :batchId AND row_index BETWEEN :fromRow AND :toRow`,
      { replacements: args, type: QueryTypes.SELECT },
    );
    return { paid: row.paid, failed: row.failed, skipped: row.total - row.paid - row.failed };
  }

  /** Sends one claimed item; a later attempt may follow one whose answer was lost: the provider's record comes first. */
  function send(item: ClaimedItem): Promise<TransferAnswer> {
    return transfers.send(
      {
        reference: item.id,
        amountCents: item.amountCents,
        pixKey: item.pixKey,
        pixKeyType: item.pixKeyType as PixKeyType,
        recipientName: item.recipientName,
        recipientDocument: item.recipientDocument,
      },
      { retry: item.attempts > 1 },
    );
  }

  /** After the grace period: the provider's record decides; with none, nothing was paid and the funding goes back. */
  async function resolveItem(args: { itemId: string }): Promise<ItemOutcome> {
    const item = await PayoutItem.findByPk(args.itemId);
    if (!item || item.status !== 'SENDING') return 'SKIPPED';
    const answer = await transfers.lookup({ reference: item.id, amountCents: item.amountCents });
    return (
      (
        await settleItems([
          { itemId: item.id, answer: answer ?? { kind: 'NO_RECORD', code: TRANSFER_NOT_ACCEPTED.code } },
        ])
      ).get(item.id) ?? 'SKIPPED'
    );
  }

  /**
   * Marks items SENDING before anything is sent (items of one batch). Under a share lock on the
   * merchant row, so an operator's freeze (which updates that row) lands wholly before or after:
   * once it committed, no item of the merchant is claimed for a first send (parked). Nor once
   * the batch carries a cancel intent (cancelled; looked at when `batchId` is given). An item
   * already SENDING (a retry) may have reached the provider: it is always followed through.
   * Four round trips: the lock and what it decides in one query, the claim in one UPDATE.
   */
  async function claimItems(args: {
    itemIds: string[];
    batchId?: string;
  }): Promise<{ claimed: ClaimedItem[]; parked: boolean; cancelled: boolean }> {
    if (args.itemIds.length === 0) return { claimed: [], parked: false, cancelled: false };
    return sequelize.transaction(async (transaction) => {
      const [control] = await sequelize.query<{
        active: boolean;
        payouts_enabled: boolean;
        withdrawals_frozen: boolean;
        cancel_reason: string | null;
        pending: number;
      }>(
        `SELECT m.active, m.payouts_enabled, m.withdrawals_frozen, b.cancel_reason,
           (SELECT count(*)::int FROM payout_items WHERE id IN (:ids) AND status = 'PENDING') AS pending
         FROM payout_items i JOIN payout_batches b ON b.id = i.batch_id JOIN merchants m ON m.id = i.merchant_id
         WHERE i.id = :first FOR SHARE OF m`,
        { replacements: { ids: args.itemIds, first: args.itemIds[0] }, type: QueryTypes.SELECT, transaction },
      );
      if (!control) return { claimed: [], parked: false, cancelled: false };
      const hasPending = control.pending > 0;
      const parked =
        hasPending &&
        payoutRefusal({
          active: control.active,
          payoutsEnabled: control.payouts_enabled,
          withdrawalsFrozen: control.withdrawals_frozen,
        }) !== null;
      const cancelled = hasPending && args.batchId !== undefined && control.cancel_reason !== null;
      const claimed = await sequelize.query<ClaimedRow>(
        `UPDATE payout_items SET status = 'SENDING', attempts = attempts + 1, updated_at = now()
         WHERE id IN (:ids) AND (status = 'SENDING' OR (status = 'PENDING' AND :claimPending))
         RETURNING id, amount_cents::float8 AS amount_cents, pix_key, pix_key_type, recipient_name, recipient_document, attempts, row_index`,
        {
          replacements: { ids: [...args.itemIds].sort(), claimPending: !parked && !cancelled },
          type: QueryTypes.SELECT,
          transaction,
        },
      );
      claimed.sort((a, b) => a.row_index - b.row_index);
      return { claimed: claimed.map(claimedItemOf), parked, cancelled };
    });
  }

  /** The provider refused the call and has no record yet: said on the item while it waits for the grace period. */
  async function markUnconfirmed(items: Array<{ itemId: string; code: string }>): Promise<void> {
    if (items.length === 0) return;
    await sequelize.query(
      `UPDATE payout_items p SET last_error_code = v.code, last_error = :reason, updated_at = now()
       FROM unnest(ARRAY[:ids]::uuid[], ARRAY[:codes]::text[]) AS v(id, code) WHERE p.id = v.id`,
      {
        replacements: {
          ids: items.map((i) => i.itemId),
          codes: items.map((i) => i.code),
          reason: describeTransferFailure(TRANSFER_NOT_ACCEPTED.code).reason,
        },
      },
    );
  }

  /**
   * Records the provider's answers in one transaction: PAID (money left), or FAILED with the
   * funding released; items no longer SENDING are skipped. Each item keeps its own ledger
   * movement key and event, so an answer recorded twice changes nothing the second time.
   */
  async function settleItems(
    answers: Array<{ itemId: string; answer: TransferAnswer }>,
  ): Promise<Map<string, 'PAID' | 'FAILED' | 'SKIPPED'>> {
    const outcomes = new Map<string, 'PAID' | 'FAILED' | 'SKIPPED'>(answers.map((a) => [a.itemId, 'SKIPPED']));
    if (answers.length === 0) return outcomes;
    const rows = [...answers]
      .sort((a, b) => (a.itemId < b.itemId ? -1 : a.itemId > b.itemId ? 1 : 0))
      .map(({ itemId, answer }) => {
        if (answer.kind === 'COMPLETED')
          return {
            id: itemId,
            status: 'PAID',
            transferId: answer.transfer.id,
            endToEndId: answer.transfer.endToEndId,
            reason: null,
            code: null,
          };
        const failure =
          answer.kind === 'REFUSED' ? describeTransferFailure(answer.transfer.failureCode) : TRANSFER_NOT_ACCEPTED;
        return {
          id: itemId,
          status: 'FAILED',
          transferId: answer.kind === 'REFUSED' ? answer.transfer.id : null,
          endToEndId: null,
          reason: failure.reason,
          code: failure.code,
        };
      });
    await sequelize.transaction(async (transaction) => {
      // Only items still SENDING move (the row lock orders a concurrent settle of the same item).
      const settled = await sequelize.query<{
        id: string;
        batch_id: string;
        merchant_id: string;
        amount_cents: number;
        fee_cents: number;
        reference_id: string | null;
        status: 'PAID' | 'FAILED';
      }>(
        `UPDATE payout_items p SET status = v.status,
           settled_at = CASE WHEN v.status = 'PAID' THEN now() ELSE p.settled_at END,
           released_at = CASE WHEN v.status = 'FAILED' THEN now() ELSE p.released_at END,
           end_to_end_id = CASE WHEN v.status = 'PAID' THEN v.end_to_end_id ELSE p.end_to_end_id END,
           provider_transfer_id = v.transfer_id, last_error = v.reason, last_error_code = v.code, updated_at = now()
         FROM unnest(ARRAY[:ids]::uuid[], ARRAY[:statuses]::text[], ARRAY[:transferIds]::text[], ARRAY[:endToEndIds]::text[], ARRAY[:reasons]::text[], ARRAY[:codes]::text[])
           AS v(id, status, transfer_id, end_to_end_id, reason, code)
         WHERE p.id = v.id AND p.status = 'SENDING'
         RETURNING p.id, p.batch_id, p.merchant_id, p.amount_cents::float8 AS amount_cents, p.fee_cents::float8 AS fee_cents, p.reference_id, p.status`,
        {
          replacements: {
            ids: rows.map((r) => r.id),
            statuses: rows.map((r) => r.status),
            transferIds: rows.map((r) => r.transferId),
            endToEndIds: rows.map((r) => r.endToEndId),
            reasons: rows.map((r) => r.reason),
            codes: rows.map((r) => r.code),
          },
          type: QueryTypes.SELECT,
          transaction,
        },
      );
      for (const item of settled) outcomes.set(item.id, item.status);
      await writeLedgerEntries(
        sequelize,
        settled.map((item) =>
          item.status === 'PAID'
            ? payoutItemPaidEntry(item.id, item.merchant_id, item.amount_cents, item.fee_cents)
            : payoutItemReleasedEntry(item.id, item.merchant_id, item.amount_cents + item.fee_cents),
        ),
        transaction,
      );
      await recordEvents(
        settled.map((item) => ({
          type: item.status === 'PAID' ? 'payout.item.paid' : 'payout.item.failed',
          merchantId: item.merchant_id,
          aggregateType: 'payout_item',
          aggregateId: item.id,
          payload: {
            id: item.id,
            batchId: item.batch_id,
            status: item.status,
            amountCents: item.amount_cents,
            referenceId: item.reference_id,
          },
        })),
        transaction,
      );
    });
    return outcomes;
  }

  /**
   * The cancel route's intent, recorded on the batch row before the workflow stops anything:
   * finishBatch reads it from there, so a finish already scheduled (or retrying) still sees it.
   * The first reason wins; a batch no longer PROCESSING is left as it is.
   */
  async function recordCancelIntent(args: { batchId: string; reason: string }): Promise<void> {
    await PayoutBatch.update(
      { cancelReason: args.reason },
      { where: { id: args.batchId, status: 'PROCESSING', cancelReason: null } },
    );
  }

  /** Items that may have reached the provider: the provider's record settles each (resolveItem). */
  async function listSendingItemIds(args: { batchId: string }): Promise<string[]> {
    const rows = await PayoutItem.findAll({
      attributes: ['id'],
      where: { batchId: args.batchId, status: 'SENDING' },
      order: [['rowIndex', 'ASC']],
    });
    return rows.map((r) => r.id);
  }

  /**
   * Ends the batch once no item is SENDING. Every item still PENDING was never sent and never
   * will be (its chunk stopped: the batch was cancelled, or an operator stopped the chunk): it is
   * CANCELLED and its funding released in one ledger entry. The cancel reason is the one the
   * cancel route recorded on the row, else the caller's (a cancel from Temporal), else
   * `unsentReason` when unsent items were found.
   */
  async function finishBatch(args: {
    batchId: string;
    cancelReason: string | null;
    unsentReason?: string;
  }): Promise<{ status: FinalBatchStatus; releasedAmountCents: number }> {
    return sequelize.transaction(async (transaction) => {
      const batch = await lockBatch(args.batchId, transaction);
      if (batch.status !== 'PROCESSING')
        return { status: batch.status as FinalBatchStatus, releasedAmountCents: batch.releasedAmountCents };
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
      if (released > 0)
        await writeLedgerEntry(
          sequelize,
          payoutBatchCancelReleaseEntry(batch.id, batch.merchantId, released),
          transaction,
        );
      const cancelReason =
        batch.cancelReason ?? args.cancelReason ?? ((row?.n ?? 0) > 0 ? (args.unsentReason ?? UNSENT_REASON) : null);
      const counts = await itemCounts(batch.id, transaction);
      const status: FinalBatchStatus =
        cancelReason !== null
          ? 'CANCELLED'
          : counts.FAILED === 0
            ? 'COMPLETED'
            : counts.PAID === 0
              ? 'FAILED'
              : 'COMPLETED_WITH_FAILURES';
      await batch.update(
        { status, completedAt: new Date(), cancelReason, releasedAmountCents: released },
        { transaction },
      );
      await recordEvent(
        {
          type: 'payout.batch.completed',
          merchantId: batch.merchantId,
          aggregateType: 'payout_batch',
          aggregateId: batch.id,
          payload: {
            id: batch.id,
            status,
            paidItems: counts.PAID,
            failedItems: counts.FAILED,
            cancelledItems: counts.CANCELLED,
            releasedAmountCents: released,
          },
        },
        transaction,
      );
      return { status, releasedAmountCents: released };
    });
  }

  async function lockBatch(batchId: string, transaction: Transaction): Promise<PayoutBatch> {
    const batch = await PayoutBatch.findByPk(batchId, { transaction, lock: transaction.LOCK.UPDATE });
    if (!batch)
      throw ApplicationFailure.nonRetryable(`payout batch ${batchId} not found`, PayoutFailureTypes.batchNotFound);
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

  return {
    reserveBatch,
    abandonReserve,
    listChunkItemIds,
    payItem,
    payItems,
    countChunkItems,
    resolveItem,
    recordCancelIntent,
    listSendingItemIds,
    finishBatch,
  };
}

export type PayoutActivities = ReturnType<typeof createPayoutActivities>;

/** An item marked SENDING, with what its transfer needs; `attempts` counts this claim. */
interface ClaimedItem {
  id: string;
  amountCents: number;
  pixKey: string;
  pixKeyType: string;
  recipientName: string;
  recipientDocument: string | null;
  attempts: number;
}

interface ClaimedRow {
  id: string;
  amount_cents: number;
  pix_key: string;
  pix_key_type: string;
  recipient_name: string;
  recipient_document: string | null;
  attempts: number;
  row_index: number;
}

function claimedItemOf(r: ClaimedRow): ClaimedItem {
  return {
    id: r.id,
    amountCents: r.amount_cents,
    pixKey: r.pix_key,
    pixKeyType: r.pix_key_type,
    recipientName: r.recipient_name,
    recipientDocument: r.recipient_document,
    attempts: r.attempts,
  };
}

/** Marks a promise whose failure is awaited later as handled, so a failure meanwhile does not end the process. */
function observed<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

/** Heartbeats when running as an activity (so a killed worker's slice is retried in seconds); a no-op when called directly. */
function activityHeartbeat(): () => void {
  let ctx: Context;
  try {
    ctx = Context.current();
  } catch {
    return () => undefined;
  }
  return () => ctx.heartbeat();
}

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

/**
 * Payout activities: a batch's reserve, and its items' send, settle and release on the one
 * outbound transfer path (activities/transfers/transferSteps.ts states its rules). What a payout
 * adds: the batch is reserved whole (amount + fee of every item), each item settles or releases
 * its own part, and the items a cancel or a stopped chunk left unsent are released in one entry;
 * items are paid many per activity, in waves claimed, sent and settled in a few transactions; an
 * item's status moves only forward under row-level conditions, so a retried or re-run activity
 * changes nothing twice; no item is claimed for a first send while the merchant may not pay out
 * (the chunk parks) or the batch carries a cancel intent.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Logger } from 'pino';
import type { Sequelize, Transaction } from 'sequelize';
import type { PixKeyType, PixProvider } from '../../core/provider';
import {
  PSP_BALANCE_INSUFFICIENT,
  TRANSFER_NOT_ACCEPTED,
  describeTransferFailure,
} from '../../core/transfers/failures';
import { accountCovers } from '../transfers/accountBalance';
import { payoutRefusal, type PayoutRefusal } from '../../core/payouts/refusal';
import { movements, payoutItemMoney, release, reserve, settle } from '../../core/ledger/postings';
import { payoutStore, type PayoutBatch } from '../../db/payouts';
import { PayoutFailureTypes, type BatchReservation, type FinalBatchStatus } from '../../workflows/payouts/types';
import { InsufficientBalanceError, writeLedgerEntry } from '../ledger/ledgerWriter';
import { recordEvent, recordEvents } from '../events/outbox';
import { TransferFailureTypes, createTransferPath } from '../transfers/transferPath';
import {
  lockMerchantForReserve,
  resolveTransfer,
  sendTransfer,
  settleOrRelease,
  type TransferDecision,
  type Unconfirmed,
} from '../transfers/transferSteps';

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
  logger: Logger;
}

export function createPayoutActivities(deps: PayoutActivityDeps) {
  const { sequelize, provider } = deps;
  const transfers = createTransferPath(provider, deps.logger);

  async function reserveBatch(args: { batchId: string }): Promise<BatchReservation> {
    try {
      return await sequelize.transaction(async (transaction) => {
        const batch = await lockBatch(args.batchId, transaction);
        const funding = batch.totalAmountCents + batch.totalFeeCents;
        if (batch.status === 'CREATED') {
          await lockMerchantForReserve(transaction, batch.merchantId, (merchant) => {
            const refusal = merchant ? payoutRefusal(merchant) : 'MERCHANT_INACTIVE';
            if (refusal) throw new PayoutRefused(refusal);
          });
          const shares = [{ merchantId: batch.merchantId, cents: funding }];
          await writeLedgerEntry(sequelize, reserve(movements.payoutBatch(batch.id).reserve, shares), transaction);
          await payoutStore.updateBatch(batch, { status: 'PROCESSING' }, transaction);
        }
        return reservationOf(batch);
      });
    } catch (err) {
      if (!(err instanceof InsufficientBalanceError) && !(err instanceof PayoutRefused)) throw err;
      // Nothing was reserved: remove the staged batch so no trace of it stays, and free its key.
      await payoutStore.removeStagedBatch(args.batchId);
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
      const batch = await payoutStore.lockBatch(args.batchId, transaction);
      if (!batch) return null;
      if (batch.status === 'CREATED') {
        await payoutStore.removeBatch(batch, transaction);
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
  }): Promise<Array<{ id: string; row_index: number; status: 'PENDING' | 'SENDING'; amount_cents: number }>> {
    return payoutStore.unsettledRows(sequelize, args);
  }

  /**
   * A slice the PSP account cannot cover now is parked before anything is claimed: its items stay
   * PENDING with PSP_BALANCE_INSUFFICIENT on them, the funding reserved, and the chunk looks again
   * with the parking backoff. Items already SENDING are always followed through first.
   */
  async function parkedForBalance(
    args: { batchId: string; fromRow: number; toRow: number },
    rows: Array<{ status: 'PENDING' | 'SENDING'; amount_cents: number }>,
  ): Promise<boolean> {
    if (rows.some((r) => r.status === 'SENDING')) return false;
    const pendingCents = rows.reduce((sum, r) => sum + Number(r.amount_cents), 0);
    if (await accountCovers(provider, pendingCents, deps.logger)) return false;
    await payoutStore.markItemsAwaitingBalance(sequelize, args, PSP_BALANCE_INSUFFICIENT);
    return true;
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
    const sent = await send(item);
    if (sent.kind === 'UNCONFIRMED') {
      await markUnconfirmed([{ itemId: item.id, code: sent.code }]);
      return 'UNCONFIRMED';
    }
    return (await settleItems([{ itemId: item.id, decision: sent }])).get(item.id) ?? 'SKIPPED';
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
    if (await parkedForBalance(args, rows)) return { unconfirmed: [], parked: true, resumeFromRow: null };
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
      const answers: Sent[] = [];
      await Promise.all(
        claimed.map(async (item) => {
          try {
            answers.push({ itemId: item.id, sent: await send(item) });
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
    const settleWave = async (answers: Sent[]) => {
      const unknown: Array<{ itemId: string; code: string }> = [];
      const decided: Array<{ itemId: string; decision: TransferDecision }> = [];
      for (const { itemId, sent } of answers) {
        if (sent.kind === 'UNCONFIRMED') unknown.push({ itemId, code: sent.code });
        else decided.push({ itemId, decision: sent });
      }
      await markUnconfirmed(unknown);
      unconfirmed.push(...unknown.map((a) => a.itemId));
      await settleItems(decided);
    };

    // A pipeline of three steps, so the database round trips overlap the transfers: while wave
    // w is at the provider, wave w+1 is being claimed, and the answers of the waves before are
    // settled, as many as have come in since the last settle, in one transaction (a settle
    // costs more than a wave of transfers, and the hot ledger rows are then taken once for all
    // of them). At most MAX_UNSETTLED_WAVES waves are sent and unsettled at once. A claimed item
    // is always sent; if this attempt dies, the next one follows it through (provider first).
    const unsettled: Sent[] = [];
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
    const row = await payoutStore.countRangeItems(sequelize, args);
    return { paid: row.paid, failed: row.failed, skipped: row.total - row.paid - row.failed };
  }

  /** Sends one claimed item; a later attempt may follow one whose answer was lost: the provider's record comes first. */
  function send(item: ClaimedItem): Promise<TransferDecision | Unconfirmed> {
    return sendTransfer(
      transfers,
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
    const item = await payoutStore.findItem(args.itemId);
    if (!item || item.status !== 'SENDING') return 'SKIPPED';
    const decision = await resolveTransfer(transfers, { reference: item.id, amountCents: item.amountCents });
    return (await settleItems([{ itemId: item.id, decision }])).get(item.id) ?? 'SKIPPED';
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
      const control = await payoutStore.claimControl(sequelize, args.itemIds, transaction);
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
      const claimed = await payoutStore.claimItemRows(sequelize, args.itemIds, !parked && !cancelled, transaction);
      claimed.sort((a, b) => a.row_index - b.row_index);
      return { claimed: claimed.map(claimedItemOf), parked, cancelled };
    });
  }

  /** The provider refused the call and has no record yet: said on the item while it waits for the grace period. */
  async function markUnconfirmed(items: Array<{ itemId: string; code: string }>): Promise<void> {
    if (items.length === 0) return;
    await payoutStore.markItemsUnconfirmed(
      sequelize,
      items,
      describeTransferFailure(TRANSFER_NOT_ACCEPTED.code).reason,
    );
  }

  /**
   * Records the provider's answers in one transaction (transferSteps.settleOrRelease, many rows):
   * PAID (money left), or FAILED with the funding released; items no longer SENDING are skipped.
   * Each item keeps its own ledger movement key and event, so an answer recorded twice changes
   * nothing the second time.
   */
  async function settleItems(
    decisions: Array<{ itemId: string; decision: TransferDecision }>,
  ): Promise<Map<string, 'PAID' | 'FAILED' | 'SKIPPED'>> {
    const outcomes = new Map<string, 'PAID' | 'FAILED' | 'SKIPPED'>(decisions.map((a) => [a.itemId, 'SKIPPED']));
    if (decisions.length === 0) return outcomes;
    const byId = new Map(decisions.map((d) => [d.itemId, d.decision]));
    const rows = [...decisions]
      .sort((a, b) => (a.itemId < b.itemId ? -1 : a.itemId > b.itemId ? 1 : 0))
      .map(({ itemId, decision }) =>
        decision.kind === 'SETTLE'
          ? {
              id: itemId,
              status: 'PAID',
              transferId: decision.providerTransferId,
              endToEndId: decision.endToEndId,
              reason: null,
              code: null,
            }
          : {
              id: itemId,
              status: 'FAILED',
              transferId: decision.providerTransferId,
              endToEndId: null,
              reason: decision.failure.reason,
              code: decision.failure.code,
            },
      );
    await settleOrRelease<payoutStore.SettledItem>(sequelize, {
      // Only items still SENDING move (the row lock orders a concurrent settle of the same item).
      transition: async (transaction) => {
        const settled = await payoutStore.settleItemRows(sequelize, rows, transaction);
        for (const item of settled) outcomes.set(item.id, item.status);
        return settled.map((row) => ({ row, decision: byId.get(row.id) as TransferDecision }));
      },
      entry: ({ row: item, decision }) => {
        const keys = movements.payoutItem(item.id);
        const money = payoutItemMoney({
          merchantId: item.merchant_id,
          amountCents: item.amount_cents,
          feeCents: item.fee_cents,
        });
        return decision.kind === 'SETTLE' ? settle(keys.settle, money) : release(keys.release, money.shares);
      },
      recorded: (settled, transaction) =>
        recordEvents(
          settled.map(({ row: item }) => ({
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
        ),
    });
    return outcomes;
  }

  /**
   * The cancel route's intent, recorded on the batch row before the workflow stops anything:
   * finishBatch reads it from there, so a finish already scheduled (or retrying) still sees it.
   * The first reason wins; a batch no longer PROCESSING is left as it is.
   */
  async function recordCancelIntent(args: { batchId: string; reason: string }): Promise<void> {
    await payoutStore.recordCancelIntent(args.batchId, args.reason);
  }

  /** Items that may have reached the provider: the provider's record settles each (resolveItem). */
  async function listSendingItemIds(args: { batchId: string }): Promise<string[]> {
    return payoutStore.sendingItemIds(args.batchId);
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
      const counts = await itemCounts(batch.id, transaction);
      const status: FinalBatchStatus =
        cancelReason !== null
          ? 'CANCELLED'
          : counts.FAILED === 0
            ? 'COMPLETED'
            : counts.PAID === 0
              ? 'FAILED'
              : 'COMPLETED_WITH_FAILURES';
      await payoutStore.updateBatch(
        batch,
        { status, completedAt: new Date(), cancelReason, releasedAmountCents: released },
        transaction,
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
    const batch = await payoutStore.lockBatch(batchId, transaction);
    if (!batch)
      throw ApplicationFailure.nonRetryable(`payout batch ${batchId} not found`, PayoutFailureTypes.batchNotFound);
    return batch;
  }

  async function itemCounts(batchId: string, transaction: Transaction): Promise<Record<string, number>> {
    const rows = await payoutStore.itemStatusCounts(sequelize, batchId, transaction);
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

/** One item's send: decided (settle or release it), or unconfirmed (the grace period, then resolveItem). */
interface Sent {
  itemId: string;
  sent: TransferDecision | Unconfirmed;
}

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

function claimedItemOf(r: payoutStore.ClaimedRow): ClaimedItem {
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

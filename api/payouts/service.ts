/**
 * Payout batches. The API validates and stages the batch (no money moves here), then starts
 * the PayoutBatch workflow with Update-With-Start; the update answers once the funding is
 * reserved in the ledger, so the 201 and the durable state agree. A batch the balance cannot
 * fund is deleted by the reserve activity and answered 400, with nothing reserved.
 */
import type { Sequelize } from 'sequelize';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { updateWithStartOrJoin } from '../../core/temporal/updateWithStart';
import { isWorkflowFailure } from '../../core/temporal/failures';
import { temporalErrorToApi } from '../temporal/temporalErrors';
import { workflowHandle } from '../../core/temporal/workflows';
import { nothingCreated } from '../idempotency/idempotencyService';
import { presentBatch, presentBatchListEntry, presentItem, type ItemCounts } from '../../core/payouts/present';
import type { Merchant } from '../../db/identity';
import { payoutStore, type PayoutBatch } from '../../db/payouts';
import {
  cancelBatchUpdate,
  payoutBatchWorkflow,
  payoutBatchWorkflowId,
  reserveBatchUpdate,
} from '../../workflows/payouts/definitions';
import { PayoutFailureTypes, type BatchReservation } from '../../workflows/payouts/types';
import { ApiError, errors } from '../errors/apiError';
import type { CreatePayoutBatchBody, ListBatchesQuery, ListItemsQuery } from './schema';
import type { StagedItem } from './batchBody';
import { sendingAccount } from '../connections/accountModel';
import type { AccountModelDefault } from '../../core/provider';

export interface PayoutSettings {
  chunkSize: number;
  parallelChunks: number;
  itemConcurrency: number;
  /** Items per activity within a chunk; absent: one wave of itemConcurrency per activity. */
  sliceSize?: number;
}

export const defaultPayoutSettings: PayoutSettings = {
  chunkSize: 2500,
  parallelChunks: 2,
  itemConcurrency: 20,
  sliceSize: 2500,
};
const BATCH_READ_ITEMS = 1000;

export const payoutErrors = {
  notEnabled: () => new ApiError(400, 'PAYOUTS_NOT_ENABLED', 'payouts are not enabled for this merchant'),
  frozen: () =>
    new ApiError(409, 'WITHDRAWAL_FROZEN', 'withdrawals and payouts of this merchant are temporarily blocked'),
  insufficient: () =>
    new ApiError(
      400,
      'INSUFFICIENT_AVAILABLE_BALANCE',
      'available balance cannot fund the batch (amounts plus fees); nothing was reserved',
    ),
  notFound: () => new ApiError(404, 'BATCH_NOT_FOUND', 'payout batch not found'),
  keyUsed: (batchId: string) =>
    new ApiError(
      409,
      'DUPLICATE_IDEMPOTENCY_KEY',
      'this idempotencyKey already identifies another payout batch; use a new key for a new batch',
      { batchId },
    ),
  notCancellable: (status: string) =>
    new ApiError(409, 'BATCH_NOT_CANCELLABLE', `batch is ${status}; only PROCESSING batches can be cancelled`),
};

export class PayoutService {
  constructor(
    private readonly deps: {
      sequelize: Sequelize;
      temporal: Client;
      taskQueue: string;
      settings: PayoutSettings;
      /** ACCOUNT_MODEL_DEFAULT: whether a merchant with no connection pays out from the platform's account. */
      accountModelDefault?: AccountModelDefault;
    },
  ) {}

  /**
   * Stages and reserves batch `batchId` (the idempotency claim's resource id). Runs inside the
   * claim: what it checks depends on the database, so a same-key retry replays instead.
   */
  async create(
    merchant: Merchant,
    body: CreatePayoutBatchBody,
    items: StagedItem[],
    batchId: string,
    resuming: boolean,
  ) {
    if (!resuming || !(await payoutStore.findBatch(batchId))) {
      assertPayoutsAllowed(merchant);
      await this.stage(merchant, batchId, body, items);
    }
    const reservation = await this.reserve(merchant.id, batchId, items.length);
    return { ...reservation, batchId, idempotencyReplay: false };
  }

  async list(merchantId: string, q: ListBatchesQuery) {
    const batches = await payoutStore.listBatches(merchantId, q);
    const counts = await this.counts(batches.map((b) => b.id));
    return {
      items: batches.map((b) => presentBatchListEntry(b, counts.get(b.id) ?? emptyCounts())),
      limit: q.limit,
      offset: q.offset,
    };
  }

  async get(merchantId: string, batchId: string) {
    const batch = await this.find(merchantId, batchId);
    const [counts, items] = await Promise.all([
      this.counts([batch.id]),
      payoutStore.itemsOfBatch(batch.id, { limit: BATCH_READ_ITEMS }),
    ]);
    return presentBatch(batch, counts.get(batch.id) ?? emptyCounts(), items);
  }

  async listItems(merchantId: string, batchId: string, q: ListItemsQuery) {
    const batch = await this.find(merchantId, batchId);
    const items = await payoutStore.itemsOfBatch(batch.id, q);
    return { items: items.map(presentItem), limit: q.limit, offset: q.offset };
  }

  async cancel(merchantId: string, batchId: string, reason: string) {
    const batch = await this.find(merchantId, batchId);
    if (batch.status !== 'PROCESSING') throw payoutErrors.notCancellable(batch.status);
    try {
      const outcome = await workflowHandle(
        this.deps.temporal,
        payoutBatchWorkflow,
        payoutBatchWorkflowId(batch.id),
      ).executeUpdate(cancelBatchUpdate, { reason });
      return { batchId: batch.id, status: outcome.status, releasedAmountCents: outcome.releasedAmountCents };
    } catch (err) {
      // The batch finished between our read and the update: it is no longer cancellable.
      if (isWorkflowFailure(err) || err instanceof WorkflowNotFoundError) {
        await payoutStore.reload(batch);
        // Still PROCESSING with no workflow to take the cancel: it was stopped by an operator, and
        // the janitor (or `payout reconcile`) settles it by the provider's records.
        if (batch.status === 'PROCESSING') {
          throw new ApiError(
            409,
            'BATCH_NOT_CANCELLABLE',
            'batch processing was stopped; it is being reconciled and funding not sent will be released',
          );
        }
        throw payoutErrors.notCancellable(batch.status);
      }
      throw temporalErrorToApi(err, { unavailable: 'the workflow service is unavailable; retry' });
    }
  }

  private async stage(merchant: Merchant, batchId: string, body: CreatePayoutBatchBody, items: StagedItem[]) {
    const fee = merchant.payoutFeeCents;
    // A batch's idempotencyKey stays bound to it after the 24 h idempotency record expired.
    const earlier = await payoutStore.batchIdOfKey(merchant.id, body.idempotencyKey);
    if (earlier) throw payoutErrors.keyUsed(earlier);
    const pspConnectionId = await sendingAccount(this.deps.sequelize, merchant.id, this.deps.accountModelDefault);
    await payoutStore.stageBatch(
      this.deps.sequelize,
      {
        id: batchId,
        pspConnectionId,
        merchantId: merchant.id,
        idempotencyKey: body.idempotencyKey,
        status: 'CREATED',
        description: body.description ?? null,
        metadata: body.metadata ?? null,
        itemsCount: items.length,
        totalAmountCents: items.reduce((s, i) => s + i.amountCents, 0),
        totalFeeCents: fee * items.length,
        cancelReason: null,
        completedAt: null,
      },
      items,
      fee,
    );
  }

  private async reserve(merchantId: string, batchId: string, itemsCount: number): Promise<BatchReservation> {
    const workflowId = payoutBatchWorkflowId(batchId);
    try {
      return await updateWithStartOrJoin(this.deps.temporal, payoutBatchWorkflow, reserveBatchUpdate, {
        workflowId,
        taskQueue: this.deps.taskQueue,
        args: [{ batchId, merchantId, itemsCount, ...this.deps.settings }],
        merchantId,
        initialStatus: 'RESERVING',
      });
    } catch (err) {
      throw temporalErrorToApi(err, {
        failures: {
          [PayoutFailureTypes.insufficientBalance]: () => payoutErrors.insufficient(),
          [PayoutFailureTypes.refused]: (failure) => {
            const refusal = failure.details?.[0];
            if (refusal === 'WITHDRAWAL_FROZEN') return payoutErrors.frozen();
            if (refusal === 'PAYOUTS_NOT_ENABLED') return payoutErrors.notEnabled();
            return errors.merchantIdRequired();
          },
          [PayoutFailureTypes.reservationUnavailable]: () =>
            nothingCreated(
              errors.unavailable(
                'the batch could not be reserved; nothing was reserved, retry with the same idempotencyKey',
              ),
            ),
        },
        unavailable: 'the workflow service is unavailable; retry with the same idempotencyKey',
      });
    }
  }

  private async find(merchantId: string, batchId: string): Promise<PayoutBatch> {
    const batch = await payoutStore.findMerchantBatch(merchantId, batchId);
    if (!batch) throw payoutErrors.notFound();
    return batch;
  }

  private async counts(batchIds: string[]): Promise<Map<string, ItemCounts>> {
    const result = new Map<string, ItemCounts>();
    if (batchIds.length === 0) return result;
    for (const r of await payoutStore.itemCounts(this.deps.sequelize, batchIds)) {
      const c = result.get(r.batchId) ?? emptyCounts();
      c[r.status] = r.n;
      result.set(r.batchId, c);
    }
    return result;
  }
}

const emptyCounts = (): ItemCounts => ({ PENDING: 0, SENDING: 0, PAID: 0, FAILED: 0, CANCELLED: 0 });

function assertPayoutsAllowed(merchant: Merchant): void {
  if (!merchant.payoutsEnabled) throw payoutErrors.notEnabled();
  if (merchant.withdrawalsFrozen) throw payoutErrors.frozen();
}

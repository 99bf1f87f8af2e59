/**
 * Payout batches. The API validates and stages the batch (no money moves here), then starts
 * the PayoutBatch workflow with Update-With-Start; the update answers once the funding is
 * reserved in the ledger, so the 201 and the durable state agree. A batch the balance cannot
 * fund is deleted by the reserve activity and answered 400, with nothing reserved.
 */
import crypto from 'node:crypto';
import { Op, QueryTypes, type Sequelize, type WhereOptions } from 'sequelize';
import { ApplicationFailure, WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { updateWithStartOrJoin } from '../temporal/updateWithStart';
import { nothingCreated } from '../idempotency/idempotencyService';
import { presentBatch, presentBatchListEntry, presentItem, type ItemCounts } from '../../core/payouts/present';
import { Merchant, PayoutBatch, PayoutItem } from '../../db/models';
import { cancelBatchUpdate, payoutBatchWorkflowId, reserveBatchUpdate } from '../../workflows/payouts/definitions';
import { PayoutFailureTypes, type BatchReservation } from '../../workflows/payouts/types';
import { ApiError, errors } from '../errors/apiError';
import type { CreatePayoutBatchBody, ListBatchesQuery, ListItemsQuery } from './schema';
import type { StagedItem } from './batchBody';

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
    private readonly deps: { sequelize: Sequelize; temporal: Client; taskQueue: string; settings: PayoutSettings },
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
    if (!resuming || !(await PayoutBatch.findByPk(batchId))) {
      assertPayoutsAllowed(merchant);
      await this.stage(merchant, batchId, body, items);
    }
    const reservation = await this.reserve(merchant.id, batchId, items.length);
    return { ...reservation, batchId, idempotencyReplay: false };
  }

  async list(merchantId: string, q: ListBatchesQuery) {
    const where: WhereOptions = { merchantId, status: q.status ?? { [Op.ne]: 'CREATED' } };
    const created: Record<symbol, Date> = {};
    if (q.createdFrom) created[Op.gte] = new Date(q.createdFrom);
    if (q.createdTo) created[Op.lte] = new Date(q.createdTo);
    if (q.createdFrom || q.createdTo) Object.assign(where, { createdAt: created });
    const batches = await PayoutBatch.findAll({
      where,
      order: [
        ['createdAt', 'DESC'],
        ['id', 'ASC'],
      ],
      limit: q.limit,
      offset: q.offset,
    });
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
      PayoutItem.findAll({ where: { batchId: batch.id }, order: [['rowIndex', 'ASC']], limit: BATCH_READ_ITEMS }),
    ]);
    return presentBatch(batch, counts.get(batch.id) ?? emptyCounts(), items);
  }

  async listItems(merchantId: string, batchId: string, q: ListItemsQuery) {
    const batch = await this.find(merchantId, batchId);
    const items = await PayoutItem.findAll({
      where: { batchId: batch.id, ...(q.status ? { status: q.status } : {}) },
      order: [['rowIndex', 'ASC']],
      limit: q.limit,
      offset: q.offset,
    });
    return { items: items.map(presentItem), limit: q.limit, offset: q.offset };
  }

  async cancel(merchantId: string, batchId: string, reason: string) {
    const batch = await this.find(merchantId, batchId);
    if (batch.status !== 'PROCESSING') throw payoutErrors.notCancellable(batch.status);
    try {
      const outcome = await this.deps.temporal.workflow
        .getHandle(payoutBatchWorkflowId(batch.id))
        .executeUpdate(cancelBatchUpdate, { args: [{ reason }] });
      return { batchId: batch.id, status: outcome.status, releasedAmountCents: outcome.releasedAmountCents };
    } catch (err) {
      // The batch finished between our read and the update: it is no longer cancellable.
      if (err instanceof WorkflowUpdateFailedError || err instanceof WorkflowNotFoundError) {
        await batch.reload();
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
      throw err;
    }
  }

  private async stage(merchant: Merchant, batchId: string, body: CreatePayoutBatchBody, items: StagedItem[]) {
    const fee = merchant.payoutFeeCents;
    // A batch's idempotencyKey stays bound to it after the 24 h idempotency record expired.
    const earlier = await PayoutBatch.findOne({
      where: { merchantId: merchant.id, idempotencyKey: body.idempotencyKey },
      attributes: ['id'],
    });
    if (earlier) throw payoutErrors.keyUsed(earlier.id);
    await this.deps.sequelize.transaction(async (transaction) => {
      await PayoutBatch.create(
        {
          id: batchId,
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
        { transaction },
      );
      // One multi-row INSERT per 2,000 items: sequelize's bulkCreate built a model instance per
      // row and took most of the POST's time for 10,000 items (docs/benchmarks.md).
      for (let start = 0; start < items.length; start += 2000) {
        const slab = items.slice(start, start + 2000);
        await this.deps.sequelize.query(
          `INSERT INTO payout_items (id, batch_id, merchant_id, row_index, status, amount_cents, fee_cents, pix_key, pix_key_type, recipient_name, recipient_document, reference_id)
           SELECT v.id, :batchId, :merchantId, v.row_index, 'PENDING', v.amount_cents, :fee, v.pix_key, v.pix_key_type, v.recipient_name, v.recipient_document, v.reference_id
           FROM unnest(ARRAY[:ids]::uuid[], ARRAY[:rowIndexes]::int[], ARRAY[:amounts]::bigint[], ARRAY[:pixKeys]::text[], ARRAY[:pixKeyTypes]::text[],
             ARRAY[:names]::text[], ARRAY[:documents]::text[], ARRAY[:references]::text[])
             AS v(id, row_index, amount_cents, pix_key, pix_key_type, recipient_name, recipient_document, reference_id)`,
          {
            replacements: {
              batchId,
              merchantId: merchant.id,
              fee,
              ids: slab.map(() => crypto.randomUUID()),
              rowIndexes: slab.map((_, n) => start + n),
              amounts: slab.map((i) => i.amountCents),
              pixKeys: slab.map((i) => i.pixKey),
              pixKeyTypes: slab.map((i) => i.pixKeyType),
              names: slab.map((i) => i.recipientName),
              documents: slab.map((i) => i.recipientDocument ?? null),
              references: slab.map((i) => i.referenceId ?? null),
            },
            transaction,
          },
        );
      }
    });
  }

  private async reserve(merchantId: string, batchId: string, itemsCount: number): Promise<BatchReservation> {
    const workflowId = payoutBatchWorkflowId(batchId);
    try {
      return await updateWithStartOrJoin(this.deps.temporal, reserveBatchUpdate, {
        workflowType: 'payoutBatch',
        workflowId,
        taskQueue: this.deps.taskQueue,
        args: [{ batchId, merchantId, itemsCount, ...this.deps.settings }],
        merchantId,
        initialStatus: 'RESERVING',
      });
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure) {
        if (err.cause.type === PayoutFailureTypes.insufficientBalance) throw payoutErrors.insufficient();
        if (err.cause.type === PayoutFailureTypes.refused) {
          const refusal = err.cause.details?.[0];
          if (refusal === 'WITHDRAWAL_FROZEN') throw payoutErrors.frozen();
          if (refusal === 'PAYOUTS_NOT_ENABLED') throw payoutErrors.notEnabled();
          throw errors.merchantIdRequired();
        }
        if (err.cause.type === PayoutFailureTypes.reservationUnavailable) {
          throw nothingCreated(
            errors.unavailable(
              'the batch could not be reserved; nothing was reserved, retry with the same idempotencyKey',
            ),
          );
        }
      }
      if ((err as { name?: string })?.name === 'ServiceError')
        throw errors.unavailable('the workflow service is unavailable; retry with the same idempotencyKey');
      throw err;
    }
  }

  private async find(merchantId: string, batchId: string): Promise<PayoutBatch> {
    const batch = await PayoutBatch.findOne({ where: { id: batchId, merchantId, status: { [Op.ne]: 'CREATED' } } });
    if (!batch) throw payoutErrors.notFound();
    return batch;
  }

  private async counts(batchIds: string[]): Promise<Map<string, ItemCounts>> {
    const result = new Map<string, ItemCounts>();
    if (batchIds.length === 0) return result;
    const rows = await this.deps.sequelize.query<{ batch_id: string; status: keyof ItemCounts; n: number }>(
      `SELECT batch_id, status, count(*)::int AS n FROM payout_items WHERE batch_id IN (:batchIds) GROUP BY batch_id, status`,
      { replacements: { batchIds }, type: QueryTypes.SELECT },
    );
    for (const r of rows) {
      const c = result.get(r.batch_id) ?? emptyCounts();
      c[r.status] = r.n;
      result.set(r.batch_id, c);
    }
    return result;
  }
}

const emptyCounts = (): ItemCounts => ({ PENDING: 0, SENDING: 0, PAID: 0, FAILED: 0, CANCELLED: 0 });

function assertPayoutsAllowed(merchant: Merchant): void {
  if (!merchant.payoutsEnabled) throw payoutErrors.notEnabled();
  if (merchant.withdrawalsFrozen) throw payoutErrors.frozen();
}

/**
 * The payout_batches and payout_items tables: the way to read them, and their writer for the
 * API's staging of a batch. (activities/payouts/payouts.ts, activities/transfers/repair.ts and the
 * reconciliation repair still write item and batch states themselves while the outbound-transfer
 * choreography is being rewritten.)
 */
import crypto from 'node:crypto';
import { Op, QueryTypes, type CreationAttributes, type Sequelize, type WhereOptions } from 'sequelize';
import { PayoutBatch, type PayoutBatchStatus } from './payoutBatch';
import { PayoutItem, type PayoutItemStatus } from './payoutItem';

export function findBatch(id: string): Promise<PayoutBatch | null> {
  return PayoutBatch.findByPk(id);
}

/** The merchant's batch once staged (a batch still CREATED is not shown); else null. */
export function findMerchantBatch(merchantId: string, batchId: string): Promise<PayoutBatch | null> {
  return PayoutBatch.findOne({ where: { id: batchId, merchantId, status: { [Op.ne]: 'CREATED' } } });
}

/** The id of the merchant's batch with this idempotencyKey, whenever it was created; else null. */
export async function batchIdOfKey(merchantId: string, idempotencyKey: string): Promise<string | null> {
  const earlier = await PayoutBatch.findOne({ where: { merchantId, idempotencyKey }, attributes: ['id'] });
  return earlier?.id ?? null;
}

/** The batch as stored now. */
export async function reload(batch: PayoutBatch): Promise<PayoutBatch> {
  return batch.reload();
}

/** A merchant's staged batches, newest first, one page (`status` absent: every status but CREATED). */
export function listBatches(
  merchantId: string,
  q: { status?: PayoutBatchStatus; createdFrom?: string; createdTo?: string; limit: number; offset: number },
): Promise<PayoutBatch[]> {
  const where: WhereOptions = { merchantId, status: q.status ?? { [Op.ne]: 'CREATED' } };
  const created: Record<symbol, Date> = {};
  if (q.createdFrom) created[Op.gte] = new Date(q.createdFrom);
  if (q.createdTo) created[Op.lte] = new Date(q.createdTo);
  if (q.createdFrom || q.createdTo) Object.assign(where, { createdAt: created });
  return PayoutBatch.findAll({
    where,
    order: [
      ['createdAt', 'DESC'],
      ['id', 'ASC'],
    ],
    limit: q.limit,
    offset: q.offset,
  });
}

/** The batch's items in row order, one page, optionally of one status. */
export function itemsOfBatch(
  batchId: string,
  q: { status?: PayoutItemStatus; limit: number; offset?: number },
): Promise<PayoutItem[]> {
  return PayoutItem.findAll({
    where: { batchId, ...(q.status ? { status: q.status } : {}) },
    order: [['rowIndex', 'ASC']],
    limit: q.limit,
    ...(q.offset !== undefined ? { offset: q.offset } : {}),
  });
}

/** How many items of these batches are in each status (a status with none is absent). */
export async function itemCounts(
  sequelize: Sequelize,
  batchIds: string[],
): Promise<{ batchId: string; status: PayoutItemStatus; n: number }[]> {
  if (batchIds.length === 0) return [];
  const rows = await sequelize.query<{ batch_id: string; status: PayoutItemStatus; n: number }>(
    `SELECT batch_id, status, count(*)::int AS n FROM payout_items WHERE batch_id IN (:batchIds) GROUP BY batch_id, status`,
    { replacements: { batchIds }, type: QueryTypes.SELECT },
  );
  return rows.map((r) => ({ batchId: r.batch_id, status: r.status, n: r.n }));
}

export interface ItemToStage {
  amountCents: number;
  pixKey: string;
  pixKeyType: string;
  recipientName: string;
  recipientDocument?: string | null;
  referenceId?: string | null;
}

/**
 * Stores a batch (status CREATED) and its PENDING items, each with `feeCents`, in one transaction.
 * One multi-row INSERT per 2,000 items: sequelize's bulkCreate built a model instance per row and
 * took most of the POST's time for 10,000 items (docs/benchmarks.md).
 */
export async function stageBatch(
  sequelize: Sequelize,
  batch: CreationAttributes<PayoutBatch>,
  items: ItemToStage[],
  feeCents: number,
): Promise<void> {
  await sequelize.transaction(async (transaction) => {
    await PayoutBatch.create(batch, { transaction });
    for (let start = 0; start < items.length; start += 2000) {
      const slab = items.slice(start, start + 2000);
      await sequelize.query(
        `INSERT INTO payout_items (id, batch_id, merchant_id, row_index, status, amount_cents, fee_cents, pix_key, pix_key_type, recipient_name, recipient_document, reference_id)
         SELECT v.id, :batchId, :merchantId, v.row_index, 'PENDING', v.amount_cents, :fee, v.pix_key, v.pix_key_type, v.recipient_name, v.recipient_document, v.reference_id
         FROM unnest(ARRAY[:ids]::uuid[], ARRAY[:rowIndexes]::int[], ARRAY[:amounts]::bigint[], ARRAY[:pixKeys]::text[], ARRAY[:pixKeyTypes]::text[],
           ARRAY[:names]::text[], ARRAY[:documents]::text[], ARRAY[:references]::text[])
           AS v(id, row_index, amount_cents, pix_key, pix_key_type, recipient_name, recipient_document, reference_id)`,
        {
          replacements: {
            batchId: batch.id,
            merchantId: batch.merchantId,
            fee: feeCents,
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

/** A merchant's payout item by id (receipts); another merchant's is not found. */
export function findMerchantItem(merchantId: string, id: string): Promise<PayoutItem | null> {
  return PayoutItem.findOne({ where: { id, merchantId } });
}

export function findItem(id: string): Promise<PayoutItem | null> {
  return PayoutItem.findByPk(id);
}

/** The batch's id and description only (what a receipt prints). */
export function findBatchDescription(id: string): Promise<Pick<PayoutBatch, 'id' | 'description'> | null> {
  return PayoutBatch.findByPk(id, { attributes: ['id', 'description'] });
}

/** Every payout item of the platform counted by status (metrics). */
export async function countItemsByStatus(sequelize: Sequelize): Promise<{ status: string; count: number }[]> {
  const rows = await sequelize.query<{ status: string; n: string }>(
    'SELECT status, count(*) AS n FROM payout_items GROUP BY status',
    { type: QueryTypes.SELECT },
  );
  return rows.map((r) => ({ status: r.status, count: Number(r.n) }));
}

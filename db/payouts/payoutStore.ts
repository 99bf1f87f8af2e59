/**
 * The payout_batches and payout_items tables: their one writer (the API's staging of a batch, the
 * payout activities) and the way to read them.
 */
import crypto from 'node:crypto';
import {
  Op,
  QueryTypes,
  type CreationAttributes,
  type InferAttributes,
  type Sequelize,
  type Transaction,
  type WhereOptions,
} from 'sequelize';
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

// --- writes of the batch's life (the payout activities) ----------------------------------------

/** The batch row under FOR UPDATE: reserve, abandon and finish decide on what no other writer changes meanwhile. */
export function lockBatch(id: string, transaction: Transaction): Promise<PayoutBatch | null> {
  return PayoutBatch.findByPk(id, { transaction, lock: transaction.LOCK.UPDATE });
}

/** A state change of the batch (reserved, finished), in the caller's transaction. */
export async function updateBatch(
  batch: PayoutBatch,
  changes: Partial<InferAttributes<PayoutBatch>>,
  transaction: Transaction,
): Promise<void> {
  await batch.update(changes, { transaction });
}

/** Removes the batch if it is still CREATED (nothing was reserved), so no trace of it stays and its key is free. */
export async function removeStagedBatch(id: string): Promise<void> {
  await PayoutBatch.destroy({ where: { id, status: 'CREATED' } });
}

/** Removes the (locked) batch row, in the caller's transaction. */
export async function removeBatch(batch: PayoutBatch, transaction: Transaction): Promise<void> {
  await batch.destroy({ transaction });
}

/** The cancel route's intent on the batch row: the first reason wins; a batch no longer PROCESSING is left as it is. */
export async function recordCancelIntent(batchId: string, reason: string): Promise<void> {
  await PayoutBatch.update(
    { cancelReason: reason },
    { where: { id: batchId, status: 'PROCESSING', cancelReason: null } },
  );
}

/** The range's items still to pay (PENDING) or to follow through (SENDING), in row order. */
export function unsettledRows(
  sequelize: Sequelize,
  args: { batchId: string; fromRow: number; toRow: number },
): Promise<Array<{ id: string; row_index: number; status: 'PENDING' | 'SENDING'; amount_cents: number }>> {
  return sequelize.query<{ id: string; row_index: number; status: 'PENDING' | 'SENDING'; amount_cents: number }>(
    `SELECT id, row_index, status, amount_cents::float8 AS amount_cents FROM payout_items
      WHERE batch_id = :batchId AND row_index BETWEEN :fromRow AND :toRow
       AND status IN ('PENDING','SENDING') ORDER BY row_index`,
    { replacements: { batchId: args.batchId, fromRow: args.fromRow, toRow: args.toRow }, type: QueryTypes.SELECT },
  );
}

/** The range's items counted: PAID, FAILED and all. */
export async function countRangeItems(
  sequelize: Sequelize,
  args: { batchId: string; fromRow: number; toRow: number },
): Promise<{ paid: number; failed: number; total: number }> {
  const [row] = await sequelize.query<{ paid: number; failed: number; total: number }>(
    `SELECT count(*) FILTER (WHERE status = 'PAID')::int AS paid, count(*) FILTER (WHERE status = 'FAILED')::int AS failed, count(*)::int AS total
       FROM payout_items WHERE batch_id = :batchId AND row_index BETWEEN :fromRow AND :toRow`,
    { replacements: args, type: QueryTypes.SELECT },
  );
  return row;
}

/** What a claim decides on, read under a share lock on the merchant row of the first item. */
export interface ClaimControl {
  active: boolean;
  payouts_enabled: boolean;
  withdrawals_frozen: boolean;
  cancel_reason: string | null;
  pending: number;
}

/**
 * The merchant's state (FOR SHARE OF the merchant row), the batch's cancel intent and how many
 * of these items are PENDING, in one query; undefined when the first item does not exist.
 */
export async function claimControl(
  sequelize: Sequelize,
  itemIds: string[],
  transaction: Transaction,
): Promise<ClaimControl | undefined> {
  const [control] = await sequelize.query<ClaimControl>(
    `SELECT m.active, m.payouts_enabled, m.withdrawals_frozen, b.cancel_reason,
           (SELECT count(*)::int FROM payout_items WHERE id IN (:ids) AND status = 'PENDING') AS pending
         FROM payout_items i JOIN payout_batches b ON b.id = i.batch_id JOIN merchants m ON m.id = i.merchant_id
         WHERE i.id = :first FOR SHARE OF m`,
    { replacements: { ids: itemIds, first: itemIds[0] }, type: QueryTypes.SELECT, transaction },
  );
  return control;
}

/** An item marked SENDING by claimItemRows. */
export interface ClaimedRow {
  id: string;
  amount_cents: number;
  pix_key: string;
  pix_key_type: string;
  recipient_name: string;
  recipient_document: string | null;
  attempts: number;
  row_index: number;
}

/** Marks SENDING the items already SENDING, and the PENDING ones when `claimPending`; one UPDATE. */
export function claimItemRows(
  sequelize: Sequelize,
  itemIds: string[],
  claimPending: boolean,
  transaction: Transaction,
): Promise<ClaimedRow[]> {
  return sequelize.query<ClaimedRow>(
    `UPDATE payout_items SET status = 'SENDING', attempts = attempts + 1, updated_at = now(),
             -- A wait for the PSP account's balance is over once the item goes.
             last_error_code = CASE WHEN last_error_code = 'PSP_BALANCE_INSUFFICIENT' THEN NULL ELSE last_error_code END,
             last_error = CASE WHEN last_error_code = 'PSP_BALANCE_INSUFFICIENT' THEN NULL ELSE last_error END
         WHERE id IN (:ids) AND (status = 'SENDING' OR (status = 'PENDING' AND :claimPending))
         RETURNING id, amount_cents::float8 AS amount_cents, pix_key, pix_key_type, recipient_name, recipient_document, attempts, row_index`,
    {
      replacements: { ids: [...itemIds].sort(), claimPending },
      type: QueryTypes.SELECT,
      transaction,
    },
  );
}

/** Says on each item the code the provider refused its call with, and `reason`. */
export async function markItemsUnconfirmed(
  sequelize: Sequelize,
  items: Array<{ itemId: string; code: string }>,
  reason: string,
): Promise<void> {
  await sequelize.query(
    `UPDATE payout_items p SET last_error_code = v.code, last_error = :reason, updated_at = now()
       FROM unnest(ARRAY[:ids]::uuid[], ARRAY[:codes]::text[]) AS v(id, code) WHERE p.id = v.id`,
    {
      replacements: {
        ids: items.map((i) => i.itemId),
        codes: items.map((i) => i.code),
        reason,
      },
    },
  );
}

/** An item that settleItemRows moved out of SENDING. */
export interface SettledItem {
  id: string;
  batch_id: string;
  merchant_id: string;
  amount_cents: number;
  fee_cents: number;
  reference_id: string | null;
  status: 'PAID' | 'FAILED';
}

/** One item's answer, as settleItemRows stores it. */
export interface ItemSettlement {
  id: string;
  status: string;
  transferId: string | null;
  endToEndId: string | null;
  reason: string | null;
  code: string | null;
}

/** Moves the items still SENDING to PAID or FAILED (the row lock orders a concurrent settle of the same item). */
export function settleItemRows(
  sequelize: Sequelize,
  rows: ItemSettlement[],
  transaction: Transaction,
): Promise<SettledItem[]> {
  return sequelize.query<SettledItem>(
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
}

/** The batch's items that may have reached the provider (SENDING), in row order. */
export async function sendingItemIds(batchId: string): Promise<string[]> {
  const rows = await PayoutItem.findAll({
    attributes: ['id'],
    where: { batchId, status: 'SENDING' },
    order: [['rowIndex', 'ASC']],
  });
  return rows.map((r) => r.id);
}

/** CANCELLED: the batch's items still PENDING (never sent); how many, and the sum of their funding. */
export async function cancelPendingItems(
  sequelize: Sequelize,
  batchId: string,
  transaction: Transaction,
): Promise<{ n: number; sum: string | null } | undefined> {
  const [row] = await sequelize.query<{ n: number; sum: string | null }>(
    `WITH cancelled AS (
           UPDATE payout_items SET status = 'CANCELLED', released_at = now(), updated_at = now()
           WHERE batch_id = :batchId AND status = 'PENDING' RETURNING amount_cents + fee_cents AS funding)
         SELECT count(*)::int AS n, SUM(funding) AS sum FROM cancelled`,
    { replacements: { batchId }, type: QueryTypes.SELECT, transaction },
  );
  return row;
}

/** How many of the batch's items are in each status (a status with none is absent), in the caller's transaction. */
export function itemStatusCounts(
  sequelize: Sequelize,
  batchId: string,
  transaction: Transaction,
): Promise<{ status: string; n: number }[]> {
  return sequelize.query<{ status: string; n: number }>(
    `SELECT status, count(*)::int AS n FROM payout_items WHERE batch_id = :batchId GROUP BY status`,
    { replacements: { batchId }, type: QueryTypes.SELECT, transaction },
  );
}

/** The batch's SENDING items in row order, each with whether it was last changed more than `grace` ago (reconcile). */
export function sendingItemsWithGrace(
  sequelize: Sequelize,
  batchId: string,
  grace: string,
): Promise<{ id: string; amount_cents: string; grace_passed: boolean }[]> {
  return sequelize.query<{ id: string; amount_cents: string; grace_passed: boolean }>(
    `SELECT id, amount_cents, updated_at < now() - CAST(:grace AS interval) AS grace_passed
       FROM payout_items WHERE batch_id = :batchId AND status = 'SENDING' ORDER BY row_index`,
    { replacements: { batchId, grace }, type: QueryTypes.SELECT },
  );
}

/** Batches still PROCESSING (id only), least recently changed first, at most `limit`. */
export function processingBatches(limit: number): Promise<PayoutBatch[]> {
  return PayoutBatch.findAll({
    attributes: ['id'],
    where: { status: 'PROCESSING' },
    order: [['updatedAt', 'ASC']],
    limit,
  });
}

/** A FAILED item's reason made precise (see withdrawalStore.refineFailure): only from the generic `from` code. */
export async function refineItemFailure(
  sequelize: Sequelize,
  id: string,
  failure: { from: string; code: string; reason: string },
): Promise<boolean> {
  const [, affected] = await sequelize.query(
    `UPDATE payout_items SET last_error_code = :code, last_error = :reason, updated_at = now()
      WHERE id = :id AND status = 'FAILED' AND last_error_code = :from`,
    { replacements: { id, ...failure }, type: QueryTypes.UPDATE },
  );
  return Number(affected) > 0;
}

/** PENDING items of the range waiting for the PSP account's balance: said on each (cleared when claimed). */
export async function markItemsAwaitingBalance(
  sequelize: Sequelize,
  args: { batchId: string; fromRow: number; toRow: number },
  failure: { code: string; reason: string },
): Promise<void> {
  await sequelize.query(
    `UPDATE payout_items SET last_error_code = :code, last_error = :reason, updated_at = now()
      WHERE batch_id = :batchId AND row_index BETWEEN :fromRow AND :toRow AND status = 'PENDING'`,
    { replacements: { ...args, ...failure }, type: QueryTypes.UPDATE },
  );
}

/** The boleto_batches and boleto_batch_items tables: their one writer and the way to read them. */
import { QueryTypes, type CreationAttributes, type Sequelize } from 'sequelize';
import { BoletoBatch, BoletoBatchItem } from './boletoBatch';

export function findBatch(id: string): Promise<BoletoBatch | null> {
  return BoletoBatch.findByPk(id);
}

/** Stores a batch and its PENDING items in one transaction. */
export async function stageBatch(
  sequelize: Sequelize,
  batch: CreationAttributes<BoletoBatch>,
  items: CreationAttributes<BoletoBatchItem>[],
): Promise<void> {
  await sequelize.transaction(async (transaction) => {
    await BoletoBatch.create(batch, { transaction });
    await BoletoBatchItem.bulkCreate(items, { transaction });
  });
}

/** One page of a batch's items, in row order. */
export function itemsPage(batchId: string, page: { limit: number; offset: number }): Promise<BoletoBatchItem[]> {
  return BoletoBatchItem.findAll({
    where: { batchId },
    order: [['rowIndex', 'ASC']],
    limit: page.limit,
    offset: page.offset,
  });
}

/** How many of the batch's items are in each status (a status with none is absent). */
export async function itemCounts(batchId: string): Promise<Map<string, number>> {
  const grouped = await BoletoBatchItem.count({ where: { batchId }, group: ['status'] });
  return new Map((grouped as unknown as { status: string; count: number }[]).map((g) => [g.status, Number(g.count)]));
}

/** The batch's item with this id, else the one that issued charge `id`. */
export async function findItem(batchId: string, id: string): Promise<BoletoBatchItem | null> {
  return (
    (await BoletoBatchItem.findOne({ where: { batchId, id } })) ??
    (await BoletoBatchItem.findOne({ where: { batchId, chargeId: id } }))
  );
}

/** Cancels the item if it is still PENDING (before the batch issues it); answers whether it did. Reloads `item`. */
export async function cancelPendingItem(item: BoletoBatchItem): Promise<boolean> {
  const [changed] = await BoletoBatchItem.update(
    { status: 'CANCELLED' },
    { where: { id: item.id, status: 'PENDING' } },
  );
  await item.reload();
  return changed === 1;
}

/** Marks the item CANCELLED (its charge was cancelled). Reloads `item`. */
export async function markItemCancelled(item: BoletoBatchItem): Promise<void> {
  await BoletoBatchItem.update({ status: 'CANCELLED' }, { where: { id: item.id } });
  await item.reload();
}

// --- the BoletoBatch workflow's writes -------------------------------------------------------

export async function batchExists(id: string): Promise<boolean> {
  return Boolean(await BoletoBatch.findByPk(id, { attributes: ['id'] }));
}

/** Ids of the batch's PENDING items, in row order. */
export async function pendingItemIds(batchId: string): Promise<string[]> {
  const rows = await BoletoBatchItem.findAll({
    where: { batchId, status: 'PENDING' },
    attributes: ['id'],
    order: [['rowIndex', 'ASC']],
  });
  return rows.map((r) => r.id);
}

export function findItemById(id: string): Promise<BoletoBatchItem | null> {
  return BoletoBatchItem.findByPk(id);
}

/** Records which try is running (its charge id derives from it). */
export async function setItemAttempts(itemId: string, attempts: number): Promise<void> {
  await BoletoBatchItem.update({ attempts }, { where: { id: itemId } });
}

/** ISSUED with its charge, if the item is still PENDING; answers whether it was. */
export async function markItemIssued(itemId: string, chargeId: string): Promise<boolean> {
  const [changed] = await BoletoBatchItem.update(
    { status: 'ISSUED', chargeId, errorCode: null, errorMessage: null },
    { where: { id: itemId, status: 'PENDING' } },
  );
  return changed === 1;
}

/** Links the charge a cancelled item issued anyway (unless it has one already). */
export async function linkItemCharge(itemId: string, chargeId: string): Promise<void> {
  await BoletoBatchItem.update({ chargeId }, { where: { id: itemId, chargeId: null } });
}

/** FAILED with our code and message, if the item is still PENDING. */
export async function markItemFailed(itemId: string, code: string, message: string): Promise<void> {
  await BoletoBatchItem.update(
    { status: 'FAILED', errorCode: code, errorMessage: message.slice(0, 500) },
    { where: { id: itemId, status: 'PENDING' } },
  );
}

/** How many of the batch's items are in each status, by raw SQL (the batch's final count). */
export async function statusCounts(sequelize: Sequelize, batchId: string): Promise<Map<string, number>> {
  const rows = await sequelize.query<{ status: string; n: string }>(
    'SELECT status, COUNT(*) AS n FROM boleto_batch_items WHERE batch_id = :batchId GROUP BY status',
    {
      replacements: { batchId },
      type: QueryTypes.SELECT,
    },
  );
  return new Map(rows.map((r) => [r.status, Number(r.n)]));
}

/** The batch's final state and counts. */
export async function finishBatch(
  batchId: string,
  outcome: { status: BoletoBatch['status']; issued: number; failed: number; cancelled: number },
): Promise<void> {
  await BoletoBatch.update(
    {
      status: outcome.status,
      issuedCount: outcome.issued,
      failedCount: outcome.failed,
      cancelledCount: outcome.cancelled,
      completedAt: new Date(),
    },
    { where: { id: batchId } },
  );
}

/** The boleto_batches and boleto_batch_items tables: their one writer and the way to read them. */
import type { CreationAttributes, Sequelize } from 'sequelize';
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

/** A chunk's row range: the items still to pay, and the counts for the chunk's result. */
import { payoutStore } from '../../db/payouts';
import type { PayoutDeps } from './deps';

/** The range's items still to pay (PENDING) or to follow through (SENDING), in row order. */
export async function unsettledRows(
  deps: Pick<PayoutDeps, 'sequelize'>,
  args: { batchId: string; fromRow: number; toRow: number },
): Promise<Array<{ id: string; row_index: number; status: 'PENDING' | 'SENDING'; amount_cents: number }>> {
  return payoutStore.unsettledRows(deps.sequelize, args);
}

/** The range's items by final status, for the chunk's result. */
export async function countChunkItems(
  deps: Pick<PayoutDeps, 'sequelize'>,
  args: { batchId: string; fromRow: number; toRow: number },
): Promise<{ paid: number; failed: number; skipped: number }> {
  const row = await payoutStore.countRangeItems(deps.sequelize, args);
  return { paid: row.paid, failed: row.failed, skipped: row.total - row.paid - row.failed };
}

/** A batch's row under lock and its items' counts, read inside the reserve's or the finish's transaction. */
import { ApplicationFailure } from '@temporalio/activity';
import type { Sequelize, Transaction } from 'sequelize';
import { payoutStore, type PayoutBatch } from '../../db/payouts';
import { PayoutFailureTypes } from '../../workflows/payouts/types';

export async function lockBatch(batchId: string, transaction: Transaction): Promise<PayoutBatch> {
  const batch = await payoutStore.lockBatch(batchId, transaction);
  if (!batch)
    throw ApplicationFailure.nonRetryable(`payout batch ${batchId} not found`, PayoutFailureTypes.batchNotFound);
  return batch;
}

export async function itemCounts(
  sequelize: Sequelize,
  batchId: string,
  transaction: Transaction,
): Promise<Record<string, number>> {
  const rows = await payoutStore.itemStatusCounts(sequelize, batchId, transaction);
  const counts: Record<string, number> = { PENDING: 0, SENDING: 0, PAID: 0, FAILED: 0, CANCELLED: 0 };
  for (const r of rows) counts[r.status] = r.n;
  return counts;
}

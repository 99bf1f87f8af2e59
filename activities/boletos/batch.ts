/** A BoletoBatch's own steps: its items to issue, an item failed, the batch finished. */
import { ApplicationFailure } from '@temporalio/activity';
import type { Sequelize } from 'sequelize';
import { boletoBatchStore } from '../../db/boletos';
import { BoletoBatchFailureTypes, type BoletoBatchOutcome } from '../../workflows/boletos/types';

export async function listPendingBoletoItems(args: { batchId: string }): Promise<string[]> {
  if (!(await boletoBatchStore.batchExists(args.batchId)))
    throw ApplicationFailure.nonRetryable(
      `boleto batch ${args.batchId} is not stored`,
      BoletoBatchFailureTypes.batchNotFound,
    );
  return boletoBatchStore.pendingItemIds(args.batchId);
}

export async function failBoletoBatchItem(args: { itemId: string; code: string; message: string }): Promise<void> {
  await boletoBatchStore.markItemFailed(args.itemId, args.code, args.message);
}

export async function finishBoletoBatch(
  deps: { sequelize: Sequelize },
  args: { batchId: string },
): Promise<BoletoBatchOutcome> {
  const counts = await boletoBatchStore.statusCounts(deps.sequelize, args.batchId);
  const count = (s: string) => counts.get(s) ?? 0;
  const outcome: BoletoBatchOutcome = {
    batchId: args.batchId,
    status: count('FAILED') > 0 ? 'COMPLETED_WITH_FAILURES' : 'COMPLETED',
    issued: count('ISSUED'),
    failed: count('FAILED'),
    cancelled: count('CANCELLED'),
  };
  await boletoBatchStore.finishBatch(args.batchId, outcome);
  return outcome;
}

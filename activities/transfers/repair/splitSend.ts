import { ApplicationFailure } from '@temporalio/activity';
import { splitSendStore } from '../../../db/splitSends';
import { startSend } from '../../splitSends/start';
import type { RepairDeps } from './deps';
import { ReconcileFailureTypes, untouched, type ReconcileSummary } from './summary';

/**
 * A split share still owed whose run is gone: started again (never released: the money is the
 * recipient's). The caller made sure no run of it is running; the run decides it. The janitor's
 * only (it starts a workflow with the activity's client): the operator CLI names batches and
 * withdrawals.
 */
export async function restartSplitSend(deps: RepairDeps, splitSendId: string): Promise<ReconcileSummary> {
  const row = await splitSendStore.findSend(deps.sequelize, splitSendId);
  if (!row)
    throw ApplicationFailure.nonRetryable(`split send ${splitSendId} not found`, ReconcileFailureTypes.notFound);
  const summary = untouched('split-send', splitSendId, row.status);
  if (row.status !== 'PENDING') return summary;
  await startSend(row.id, row.merchantId, true);
  return { ...summary, waiting: 1 };
}

import { ApplicationFailure } from '@temporalio/activity';
import { NOT_PROCESSED, TRANSFER_GRACE } from '../../../core/transfers/failures';
import { withdrawalStore } from '../../../db/withdrawals';
import { completeWithdrawal, failWithdrawal } from '../../withdrawals/settle';
import { transferRecordOf } from '../../withdrawals/transferRecord';
import type { RepairDeps } from './deps';
import { ReconcileFailureTypes, untouched, type ReconcileSummary } from './summary';

/** Reconciles withdrawal `withdrawalId`; the caller made sure its workflow is not running. */
export async function reconcileWithdrawal(deps: RepairDeps, withdrawalId: string): Promise<ReconcileSummary> {
  const found = await withdrawalStore.findWithdrawal(withdrawalId);
  if (!found)
    throw ApplicationFailure.nonRetryable(`withdrawal ${withdrawalId} not found`, ReconcileFailureTypes.notFound);
  const summary = untouched('withdrawal', withdrawalId, found.status);
  if (found.status !== 'PROCESSING') return summary;
  const transfer = await transferRecordOf(deps.withdrawals, withdrawalId);
  if (transfer?.status === 'COMPLETED') {
    await completeWithdrawal(deps.withdrawals, { withdrawalId, transfer });
    return { ...summary, status: 'COMPLETED', paid: 1 };
  }
  if (!transfer) {
    if (!(await withdrawalStore.gracePassed(deps.sequelize, withdrawalId, TRANSFER_GRACE)))
      return { ...summary, waiting: 1 };
  }
  await failWithdrawal(deps.withdrawals, {
    withdrawalId,
    status: 'FAILED',
    transfer,
    failure: transfer ? null : NOT_PROCESSED,
  });
  return { ...summary, status: 'FAILED', released: 1, releasedAmountCents: found.totalDebitedCents };
}

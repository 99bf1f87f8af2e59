/**
 * One firing of a merchant's settlement schedule (Temporal Schedule `settlement-<merchantId>`):
 * plan the amount in an activity, then run the withdrawal lifecycle for it as a child workflow
 * (the one transfer path: reserve → transfer → settle or release). The settlement and withdrawal
 * ids come from uuid4(), which is deterministic in a workflow, so a replayed or retried task
 * never starts a second child; the settlement row's schedule_run_id (this workflow id, unique
 * per firing) is unique too. A skip (below the minimum, no Pix key…) is only this run's result.
 */
import { ParentClosePolicy, proxyActivities, uuid4, workflowInfo } from '@temporalio/workflow';
import type { SettlementActivities } from '../../activities/settlements/settlements';
import { MerchantIdKey } from '../../core/temporal/searchAttributes';
import { executeChildOf } from '../children';
import { withdrawalLifecycleWorkflow, withdrawalWorkflowId } from '../withdrawals/definitions';
import type { WithdrawalInput } from '../withdrawals/types';
import type { ScheduledSettlementResult } from './types';

const acts = proxyActivities<SettlementActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10 },
});

export async function scheduledSettlement(args: { merchantId: string }): Promise<ScheduledSettlementResult> {
  const { merchantId } = args;
  const plan = await acts.planScheduledSettlement({ merchantId, firedAt: new Date().toISOString() });
  if (plan.kind === 'SKIP') return { merchantId, plan, settlementId: null, status: null };
  // Settlement and withdrawal share an id, as on demand.
  const settlementId = uuid4();
  const input: WithdrawalInput = {
    withdrawalId: settlementId,
    merchantId,
    amountCents: plan.amountCents,
    description: `Settlement (scheduled ${plan.frequency})`,
    idempotencyKey: null,
    userId: null,
    settlement: {
      settlementId,
      trigger: 'SCHEDULED',
      requestedBy: null,
      scheduleRunId: workflowInfo().workflowId,
      scheduleFrequency: plan.frequency,
    },
  };
  let status: string;
  try {
    const outcome = await executeChildOf(withdrawalLifecycleWorkflow, {
      workflowId: withdrawalWorkflowId(settlementId),
      args: [input],
      // The transfer must finish on its own terms even if this run is terminated.
      parentClosePolicy: ParentClosePolicy.ABANDON,
      typedSearchAttributes: [{ key: MerchantIdKey, value: merchantId }],
    });
    status = outcome.status;
  } catch {
    // Cancelled by an operator in the Web UI: the withdrawal row says what happened to the money.
    status = 'CANCELLED';
  }
  return { merchantId, plan, settlementId, status };
}

/**
 * Starting the sends a settlement made owed. Why here, and not in the charge's workflow: the
 * CHARGE_PAID entry (the share reserved in the owner's account) and the PENDING row commit in one
 * DB transaction, and the activity that committed them starts the send before it returns. A
 * worker that dies in between has not returned, so its activity runs again (a local activity's
 * result is recorded only once it returns), finds the charge PAID and starts the sends still
 * PENDING. Every path that credits a charge (its lifecycle, a late payment, a payment healed by
 * the reconciliation or the sweep) goes through that activity, and no workflow's commands change,
 * so every recorded history replays as it was. The janitor starts any PENDING send whose run is
 * gone (terminated by an operator, or a start that failed for good), as it repairs withdrawals.
 */
import { Context } from '@temporalio/activity';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { Sequelize } from 'sequelize';
import { MerchantIdKey } from '../../core/temporal/searchAttributes';
import { startWorkflow } from '../../core/temporal/workflows';
import { splitSendStore } from '../../db/splitSends';
import { splitSendWorkflow, splitSendWorkflowId } from '../../workflows/splitSends/definitions';

/** Starts a run for each of the charge's PENDING sends that has none (a second start is a no-op). */
export async function startOwedSends(sequelize: Sequelize, chargeId: string): Promise<number> {
  const owed = (await splitSendStore.sendsOfCharge(sequelize, chargeId)).filter((s) => s.status === 'PENDING');
  for (const send of owed) await startSend(send.id, send.merchantId);
  return owed.length;
}

/**
 * One send's run, under its own id; a run of that id already started (running or ended) is left
 * as it is. `again`: the janitor's restart of a PENDING send whose run ended without deciding it.
 */
export async function startSend(splitSendId: string, merchantId: string, again = false): Promise<void> {
  const ctx = Context.current();
  try {
    await startWorkflow(ctx.client, splitSendWorkflow, {
      workflowId: splitSendWorkflowId(splitSendId),
      taskQueue: ctx.info.taskQueue,
      args: [{ splitSendId }],
      // A run that ended without deciding (terminated) is the janitor's to restart, after it looked.
      workflowIdReusePolicy: again ? 'ALLOW_DUPLICATE' : 'REJECT_DUPLICATE',
      typedSearchAttributes: [{ key: MerchantIdKey, value: merchantId }],
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

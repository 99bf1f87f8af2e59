/**
 * Repair of reservations whose workflow is gone (terminated, or lost): the operator's
 * `payout reconcile` / `withdrawal reconcile` commands and the janitor share this module.
 *
 * Rules, the same as the one transfer path's:
 * - A workflow that is still running owns its money: nothing here touches it (cancel it instead).
 * - Every item that may have reached the provider (SENDING payout item, PROCESSING withdrawal) is
 *   settled by the provider's record for our reference: COMPLETED → paid, refused → released.
 * - With no record, it is released only once it was claimed more than TRANSFER_GRACE ago (an
 *   attempt may still be running or being processed); until then it waits for the next run.
 * - PENDING payout items were never sent: released, then the batch finishes (CANCELLED).
 * - A split share owed (PENDING) with no run (its start lost, or the run terminated) is not
 *   released: it is the recipient's money. Its run is started again, and it decides the send by
 *   the provider's record (its first attempt asks nothing, but the send's idempotency key is the
 *   same, so a share already paid is not paid twice).
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { workflowRunning } from '../../../core/temporal/workflows';
import { payoutBatchWorkflowId } from '../../../workflows/payouts/definitions';
import { splitSendWorkflowId } from '../../../workflows/splitSends/definitions';
import { withdrawalWorkflowId } from '../../../workflows/withdrawals/definitions';
import { restartSplitSend } from './splitSend';
import { reconcileBatch } from './batch';
import { repairDeps, type ReconcileDeps, type RepairDeps } from './deps';
import { ReconcileFailureTypes, type ReconcileSummary } from './summary';
import { reconcileWithdrawal } from './withdrawal';

/** The repair with its dependencies built once: the operator CLI's entry (the activities call reconcileStopped). */
export function createReconciler(deps: ReconcileDeps) {
  const repair = repairDeps(deps);
  return {
    reconcileStopped: (client: Client, target: { kind: ReconcileSummary['kind']; id: string }) =>
      reconcileStopped(repair, client, target),
  };
}

/** Refuses while the workflow runs: the operator cancels it instead, and it compensates itself. */
export async function reconcileStopped(
  deps: RepairDeps,
  client: Client,
  target: { kind: ReconcileSummary['kind']; id: string },
): Promise<ReconcileSummary> {
  const workflowId =
    target.kind === 'payout-batch'
      ? payoutBatchWorkflowId(target.id)
      : target.kind === 'split-send'
        ? splitSendWorkflowId(target.id)
        : withdrawalWorkflowId(target.id);
  if (await workflowRunning(client, workflowId)) {
    throw ApplicationFailure.nonRetryable(
      `workflow ${workflowId} is still running: cancel it instead (Temporal Web UI Cancel, or the API cancel route); it releases what was not sent`,
      ReconcileFailureTypes.running,
    );
  }
  if (target.kind === 'split-send') return restartSplitSend(deps, target.id);
  return target.kind === 'payout-batch' ? reconcileBatch(deps, target.id) : reconcileWithdrawal(deps, target.id);
}

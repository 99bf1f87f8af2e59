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
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Logger } from 'pino';
import type { Sequelize } from 'sequelize';
import type { PixProvider } from '../../core/provider';
import { NOT_PROCESSED, TRANSFER_GRACE } from '../../core/transfers/failures';
import { payoutStore } from '../../db/payouts';
import { withdrawalStore } from '../../db/withdrawals';
import { payoutBatchWorkflowId } from '../../workflows/payouts/definitions';
import { withdrawalWorkflowId } from '../../workflows/withdrawals/definitions';
import { createPayoutActivities } from '../payouts';
import { createTransferPath } from './transferPath';
import { createWithdrawalActivities } from '../withdrawals/withdrawals';

export interface ReconcileDeps {
  sequelize: Sequelize;
  provider: PixProvider;
  logger: Logger;
}

export interface ReconcileSummary {
  kind: 'payout-batch' | 'withdrawal';
  id: string;
  /** The row's status after the run: still PROCESSING while something waits for the grace period. */
  status: string;
  paid: number;
  released: number;
  /** Sent, no provider record yet, claimed less than TRANSFER_GRACE ago: the next run decides. */
  waiting: number;
  releasedAmountCents: number;
}

export const ReconcileFailureTypes = {
  notFound: 'ReconcileNotFound',
  running: 'WorkflowStillRunning',
} as const;

const RECONCILED_REASON = 'its workflow stopped; unsent items released by reconciliation';

/** True while the workflow runs (it owns the money then); false when it ended or never existed. */
export async function workflowRunning(client: Client, workflowId: string): Promise<boolean> {
  try {
    return (await client.workflow.getHandle(workflowId).describe()).status.name === 'RUNNING';
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

export function createReconciler(deps: ReconcileDeps) {
  const { sequelize } = deps;
  const payouts = createPayoutActivities(deps);
  const withdrawals = createWithdrawalActivities(deps);
  const transfers = createTransferPath(deps.provider, deps.logger);

  /** Reconciles batch `batchId`; the caller made sure its workflow is not running. */
  async function reconcileBatch(batchId: string): Promise<ReconcileSummary> {
    const batch = await payoutStore.findBatch(batchId);
    if (!batch)
      throw ApplicationFailure.nonRetryable(`payout batch ${batchId} not found`, ReconcileFailureTypes.notFound);
    const summary: ReconcileSummary = {
      kind: 'payout-batch',
      id: batchId,
      status: batch.status,
      paid: 0,
      released: 0,
      waiting: 0,
      releasedAmountCents: 0,
    };
    if (batch.status !== 'PROCESSING') return summary;
    const sending = await payoutStore.sendingItemsWithGrace(sequelize, batchId, TRANSFER_GRACE);
    for (const item of sending) {
      // Within the grace period only a provider record settles; resolveItem looks it up again.
      if (
        !item.grace_passed &&
        !(await transfers.lookup({ reference: item.id, amountCents: Number(item.amount_cents) }))
      ) {
        summary.waiting++;
        continue;
      }
      const outcome = await payouts.resolveItem({ itemId: item.id });
      if (outcome === 'PAID') summary.paid++;
      else if (outcome === 'FAILED') summary.released++;
    }
    if (summary.waiting > 0) return summary;
    const finished = await payouts.finishBatch({ batchId, cancelReason: null, unsentReason: RECONCILED_REASON });
    return { ...summary, status: finished.status, releasedAmountCents: finished.releasedAmountCents };
  }

  /** Reconciles withdrawal `withdrawalId`; the caller made sure its workflow is not running. */
  async function reconcileWithdrawal(withdrawalId: string): Promise<ReconcileSummary> {
    const found = await withdrawalStore.findWithdrawal(withdrawalId);
    if (!found)
      throw ApplicationFailure.nonRetryable(`withdrawal ${withdrawalId} not found`, ReconcileFailureTypes.notFound);
    const summary: ReconcileSummary = {
      kind: 'withdrawal',
      id: withdrawalId,
      status: found.status,
      paid: 0,
      released: 0,
      waiting: 0,
      releasedAmountCents: 0,
    };
    if (found.status !== 'PROCESSING') return summary;
    const transfer = await withdrawals.findWithdrawalTransfer({ withdrawalId });
    if (transfer?.status === 'COMPLETED') {
      await withdrawals.completeWithdrawal({ withdrawalId, transfer });
      return { ...summary, status: 'COMPLETED', paid: 1 };
    }
    if (!transfer) {
      if (!(await withdrawalStore.gracePassed(sequelize, withdrawalId, TRANSFER_GRACE)))
        return { ...summary, waiting: 1 };
    }
    await withdrawals.failWithdrawal({
      withdrawalId,
      status: 'FAILED',
      transfer,
      failure: transfer ? null : NOT_PROCESSED,
    });
    return { ...summary, status: 'FAILED', released: 1, releasedAmountCents: found.totalDebitedCents };
  }

  /** Refuses while the workflow runs: the operator cancels it instead, and it compensates itself. */
  async function reconcileStopped(
    client: Client,
    target: { kind: ReconcileSummary['kind']; id: string },
  ): Promise<ReconcileSummary> {
    const workflowId =
      target.kind === 'payout-batch' ? payoutBatchWorkflowId(target.id) : withdrawalWorkflowId(target.id);
    if (await workflowRunning(client, workflowId)) {
      throw ApplicationFailure.nonRetryable(
        `workflow ${workflowId} is still running: cancel it instead (Temporal Web UI Cancel, or the API cancel route); it releases what was not sent`,
        ReconcileFailureTypes.running,
      );
    }
    return target.kind === 'payout-batch' ? reconcileBatch(target.id) : reconcileWithdrawal(target.id);
  }

  return { reconcileStopped };
}

/** Activities of the janitor workflow. */
export function createReconcileActivities(deps: ReconcileDeps) {
  const reconciler = createReconciler(deps);

  /** Reservations that are still open: payout batches and withdrawals PROCESSING, oldest first. */
  async function listOpenReservations(args: {
    limit: number;
  }): Promise<{ kind: ReconcileSummary['kind']; id: string }[]> {
    const [batches, open] = await Promise.all([
      payoutStore.processingBatches(args.limit),
      withdrawalStore.openWithdrawalIds(args.limit),
    ]);
    return [
      ...batches.map((b) => ({ kind: 'payout-batch' as const, id: b.id })),
      ...open.map((id) => ({ kind: 'withdrawal' as const, id })),
    ];
  }

  /** Reconciles one reservation unless its workflow runs (then null: it owns the money). */
  async function reconcileIfStopped(target: {
    kind: ReconcileSummary['kind'];
    id: string;
  }): Promise<ReconcileSummary | null> {
    try {
      return await reconciler.reconcileStopped(Context.current().client, target);
    } catch (err) {
      if (err instanceof ApplicationFailure && err.type === ReconcileFailureTypes.running) return null;
      throw err;
    }
  }

  return { listOpenReservations, reconcileIfStopped };
}

export type ReconcileActivities = ReturnType<typeof createReconcileActivities>;

/** What the janitor workflow (workflows/transfers/janitor.ts) does with each run. */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { payoutStore } from '../../../db/payouts';
import { splitSendStore } from '../../../db/splitSends';
import { withdrawalStore } from '../../../db/withdrawals';
import type { RepairDeps } from './deps';
import { reconcileStopped } from './reconciler';
import { ReconcileFailureTypes, type ReconcileSummary } from './summary';

/**
 * Reservations that are still open: payout batches and withdrawals PROCESSING, and split shares
 * owed (PENDING) in a charge owner's account, oldest first.
 */
export async function listOpenReservations(
  deps: Pick<RepairDeps, 'sequelize'>,
  args: { limit: number },
): Promise<{ kind: ReconcileSummary['kind']; id: string }[]> {
  const [batches, open, owed] = await Promise.all([
    payoutStore.processingBatches(args.limit),
    withdrawalStore.openWithdrawalIds(args.limit),
    splitSendStore.pendingSendIds(deps.sequelize, args.limit),
  ]);
  return [
    ...batches.map((b) => ({ kind: 'payout-batch' as const, id: b.id })),
    ...open.map((id) => ({ kind: 'withdrawal' as const, id })),
    ...owed.map((id) => ({ kind: 'split-send' as const, id })),
  ];
}

/** Reconciles one reservation unless its workflow runs (then null: it owns the money). */
export async function reconcileIfStopped(
  deps: RepairDeps,
  target: { kind: ReconcileSummary['kind']; id: string },
): Promise<ReconcileSummary | null> {
  try {
    return await reconcileStopped(deps, Context.current().client, target);
  } catch (err) {
    if (err instanceof ApplicationFailure && err.type === ReconcileFailureTypes.running) return null;
    throw err;
  }
}

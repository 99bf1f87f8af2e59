/** Activities of the janitor workflow: the repair of reservations whose workflow is gone (reconciler.ts). */
import { repairDeps, type ReconcileDeps } from './deps';
import { listOpenReservations, reconcileIfStopped } from './janitor';
import type { ReconcileSummary } from './summary';

export function createReconcileActivities(deps: ReconcileDeps) {
  const repair = repairDeps(deps);
  return {
    listOpenReservations: (args: { limit: number }) => listOpenReservations(args),
    reconcileIfStopped: (target: { kind: ReconcileSummary['kind']; id: string }) => reconcileIfStopped(repair, target),
  };
}

export type ReconcileActivities = ReturnType<typeof createReconcileActivities>;

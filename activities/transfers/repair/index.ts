/** Activities of the janitor workflow: the repair of reservations whose workflow is gone (reconciler.ts). */
import { repairDeps, type ReconcileDeps } from './deps';
import { listOpenReservations, reconcileIfStopped } from './janitor';

export function createReconcileActivities(deps: ReconcileDeps) {
  const repair = repairDeps(deps);
  return {
    listOpenReservations: (args: Parameters<typeof listOpenReservations>[1]) => listOpenReservations(repair, args),
    reconcileIfStopped: (target: Parameters<typeof reconcileIfStopped>[1]) => reconcileIfStopped(repair, target),
  };
}

export type ReconcileActivities = ReturnType<typeof createReconcileActivities>;

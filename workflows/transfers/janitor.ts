/**
 * Janitor (started every 10 minutes by the Temporal Schedule `janitor`, visible and pausable in
 * the Web UI): finds reservations whose workflow is no longer running — a payout batch or a
 * withdrawal still PROCESSING after its run was terminated — and reconciles each by the
 * provider's record (activities/transfers/repair/). A reservation whose workflow runs is left alone.
 */
import { ApplicationFailure, log, proxyActivities } from '@temporalio/workflow';
import type { ReconcileActivities } from '../../activities/transfers/repair';
import type { ReconcileSummary } from '../../activities/transfers/repair/summary';

const acts = proxyActivities<ReconcileActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5 },
});

/** Reservations looked at per run, per kind: the next run takes the rest. */
const PER_RUN = 200;

export interface JanitorResult {
  reconciled: ReconcileSummary[];
  /** Reservations whose reconcile failed this run (alerted in the log); the next run tries again. */
  failed: string[];
}

export async function janitor(): Promise<JanitorResult> {
  const result: JanitorResult = { reconciled: [], failed: [] };
  for (const target of await acts.listOpenReservations({ limit: PER_RUN })) {
    try {
      const summary = await acts.reconcileIfStopped(target);
      if (summary) result.reconciled.push(summary);
    } catch (err) {
      // One reservation that needs a person (a transfer that is not ours) must not stop the rest.
      const cause = (err as { cause?: unknown }).cause;
      log.error('janitor could not reconcile a reservation', {
        ...target,
        error: cause instanceof ApplicationFailure ? cause.message : String(err),
      });
      result.failed.push(`${target.kind}:${target.id}`);
    }
  }
  return result;
}

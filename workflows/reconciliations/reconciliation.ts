/**
 * Reconciliation of one merchant's date range at one PSP account (the platform's, or the
 * merchant's own connection's): reads the account's statement (and a connection's saldo),
 * compares it with the ledger and the charges, hands lost payments to the normal settlement path
 * (the activity signals the charge's lifecycle or starts settleLatePayment) and stores the report.
 * It writes nothing to the ledger itself. A run that keeps failing marks the row FAILED.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { ReconciliationActivities } from '../../activities/reconciliations';

const acts = proxyActivities<ReconciliationActivities>({
  startToCloseTimeout: '2 minutes',
  // Every step is idempotent (a repeated claim settles once); give up after a while and say so.
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 6 },
});

export async function reconciliation(args: { reconciliationId: string }): Promise<void> {
  try {
    await acts.runReconciliation(args);
  } catch (err) {
    // An ActivityFailure's own message is generic; its cause says what went wrong.
    const reason = err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : String(err);
    await acts.failReconciliation({ reconciliationId: args.reconciliationId, reason });
  }
}

/**
 * Activities of the Reconciliation workflow: the provider's statement against the
 * ledger, for one merchant's Pix charges paid in a date range (Brasília days, inclusive), or for
 * every merchant's at once (a platform-wide run, no merchant: operators only). A run compares one
 * PSP account: the platform's (what was issued, refunded and sent there), or a connected
 * merchant's own (connection.ts: its Pix received, its sends and its saldo against the ledger
 * mirror), never one account's statement with another account's records.
 *
 * - On the statement and in the ledger with the same gross and endToEndId: matched.
 * - On the statement, no CHARGE_PAID entry: missing in the ledger (a lost callback). It goes
 *   through the normal path, ProviderCallbackService.settleClaim (signal the lifecycle, or
 *   settleLatePayment when the run closed), which asks the provider again before crediting:
 *   reported healed. Nothing here writes to the ledger.
 * - Both, but the amounts (or the endToEndId) disagree: amount mismatch, for a person to look at.
 * - In the ledger, not on the statement: missing at the provider.
 * Devoluções (refunds) the same way, by refund id, against their REFUND_COMPLETED entries; one
 * the provider made and the ledger lacks is reported, not healed: its refund workflow owns it and
 * settles by the provider's record. Transfers out (withdrawals, settlements, payout items) the
 * same way, by their id, against the amount their completing entry sent to provider clearing.
 */
import { prepareDailyReconciliations } from './daily';
import { reconciliationDeps, type ReconciliationActivityDeps } from './deps';
import { failReconciliation, runReconciliation } from './run';

export function createReconciliationActivities(activityDeps: ReconciliationActivityDeps) {
  const deps = reconciliationDeps(activityDeps);
  return {
    runReconciliation: (args: Parameters<typeof runReconciliation>[1]) => runReconciliation(deps, args),
    failReconciliation: (args: Parameters<typeof failReconciliation>[1]) => failReconciliation(deps, args),
    prepareDailyReconciliations: (args: Parameters<typeof prepareDailyReconciliations>[1]) =>
      prepareDailyReconciliations(deps, args),
  };
}

export type ReconciliationActivities = ReturnType<typeof createReconciliationActivities>;

/** The reconciliations domain's table (reconciliations), through one store. */
export * as reconciliationStore from './reconciliationStore';
export type { Reconciliation, ReconciliationStatus } from './reconciliationStore';
export * as comparisonStore from './comparisonStore';
export type { LedgerPaid, Outgoing } from './comparisonStore';

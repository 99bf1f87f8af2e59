/** The reconciliation workflows, defined once and shared by the workflows, the API and the worker's Schedule. */
import { defineWorkflow } from '../defineWorkflow';
import type { dailyReconciliation } from './daily';
import type { reconciliation } from './reconciliation';

/** One report: a merchant's date range compared with one PSP account's statement (and saldo) and the ledger. */
export const reconciliationWorkflow = defineWorkflow<typeof reconciliation>('reconciliation');
/** The Schedule's daily run: one child reconciliation per merchant the day touched, and one per active connection. */
export const dailyReconciliationWorkflow = defineWorkflow<typeof dailyReconciliation>('dailyReconciliation');

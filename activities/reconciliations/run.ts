import { ApplicationFailure } from '@temporalio/activity';
import { ProviderError } from '../../core/provider';
import { reconciliationStore } from '../../db/reconciliations';
import type { ReconciliationResult } from '../../workflows/reconciliations/types';
import type { ReconciliationDeps } from './deps';
import { reconcileConnection } from './connection';
import { compareReturns, compareTransfers } from './outgoing';
import { comparePayments } from './payments';
import { brasiliaDayRange, emptyReport, statementOf } from './statement';

/**
 * Compares, heals lost payments through the normal path, and stores the report (idempotent).
 * A failure carries our words only: the workflow stores its message as the report's
 * failureReason, which merchants read, and the provider's or the network's own text may name
 * the supplier, hosts or paths. The whole error goes to the worker's log.
 */
export async function runReconciliation(
  deps: ReconciliationDeps,
  args: { reconciliationId: string },
): Promise<ReconciliationResult> {
  try {
    return await reconcile(deps, args);
  } catch (err) {
    if (err instanceof ApplicationFailure) throw err;
    deps.logger
      .child({ module: 'reconciliations' })
      .warn({ err, reconciliationId: args.reconciliationId }, 'reconciliation attempt failed');
    if (err instanceof ProviderError)
      throw ApplicationFailure.retryable(
        `the provider’s statement could not be read (${err.code})`,
        'StatementUnavailable',
      );
    throw ApplicationFailure.retryable(
      'the reconciliation could not be completed (internal error)',
      'ReconciliationInternalError',
    );
  }
}

async function reconcile(deps: ReconciliationDeps, args: { reconciliationId: string }): Promise<ReconciliationResult> {
  const { sequelize } = deps;
  const run = await reconciliationStore.findRun(sequelize, args.reconciliationId);
  if (!run) throw new Error(`reconciliation ${args.reconciliationId} not found`);
  const range = brasiliaDayRange(run.fromDate, run.toDate);
  const report = emptyReport();
  if (run.pspConnectionId !== null && run.merchantId !== null) {
    // A connected merchant's own account (connection.ts).
    await reconcileConnection(deps, { merchantId: run.merchantId, connectionId: run.pspConnectionId }, range, report);
  } else {
    // The platform's account: its statement against what the ledger booked there.
    const scope = { merchantId: run.merchantId, connectionId: null };
    const statement = await statementOf(deps.statements, range);
    await comparePayments(deps, scope, range, statement.payments, report);
    await compareReturns(deps, scope, range, statement.transfers, report);
    await compareTransfers(deps, scope, range, statement.transfers, report);
  }
  await reconciliationStore.completeRun(sequelize, args.reconciliationId, report);
  return report;
}

export async function failReconciliation(
  deps: ReconciliationDeps,
  args: { reconciliationId: string; reason: string },
): Promise<void> {
  await reconciliationStore.failRun(deps.sequelize, args.reconciliationId, args.reason);
}

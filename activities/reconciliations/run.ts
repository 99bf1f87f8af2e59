import { ApplicationFailure } from '@temporalio/activity';
import { ProviderError } from '../../core/provider';
import { reconciliationStore } from '../../db/reconciliations';
import type { ReconciliationResult } from '../../workflows/reconciliations/types';
import type { ReconciliationDeps } from './deps';
import { compareReturns, compareTransfers } from './outgoing';
import { comparePayments } from './payments';
import { brasiliaDayRange, statementOf, type Report } from './statement';

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
  const statement = await statementOf(deps.statements, range);
  const report: Report = {
    counts: { matched: 0, missingInLedger: 0, missingAtProvider: 0, amountMismatch: 0, healed: 0 },
    differences: [],
  };
  await comparePayments(deps, run.merchantId, range, statement.payments, report);
  await compareReturns(deps, run.merchantId, range, statement.transfers, report);
  await compareTransfers(deps, run.merchantId, range, statement.transfers, report);
  await reconciliationStore.completeRun(sequelize, args.reconciliationId, report);
  return report;
}

export async function failReconciliation(
  deps: ReconciliationDeps,
  args: { reconciliationId: string; reason: string },
): Promise<void> {
  await reconciliationStore.failRun(deps.sequelize, args.reconciliationId, args.reason);
}

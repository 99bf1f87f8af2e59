/** What the reconciliation steps are given: the worker's dependencies, and what is built from them once. */
import type { Logger } from 'pino';
import type { Sequelize } from 'sequelize';
import {
  isStatementProvider,
  platformOnly,
  type PixProvider,
  type PspAccounts,
  type StatementProvider,
} from '../../core/provider';

export interface ReconciliationActivityDeps {
  sequelize: Sequelize;
  provider: PixProvider;
  statementProvider?: StatementProvider;
  /** Every merchant's account (connected merchants' own); default: the platform's only. */
  accounts?: PspAccounts;
  logger: Logger;
}

export interface ReconciliationDeps {
  sequelize: Sequelize;
  /** The worker's logger; the steps log on children of it. */
  logger: Logger;
  /** Who serves the platform account's statement: the statement provider given, or the provider when it serves one. */
  statements?: StatementProvider;
  /** Where a connection's reconciliation reads its account (statement and saldo). */
  accounts: PspAccounts;
}

export function reconciliationDeps(deps: ReconciliationActivityDeps): ReconciliationDeps {
  return {
    sequelize: deps.sequelize,
    logger: deps.logger,
    statements: deps.statementProvider ?? (isStatementProvider(deps.provider) ? deps.provider : undefined),
    accounts: deps.accounts ?? platformOnly(deps.provider),
  };
}

/** What the reconciliation steps are given: the worker's dependencies, and what is built from them once. */
import type { Logger } from 'pino';
import type { Sequelize } from 'sequelize';
import { isStatementProvider, type PixProvider, type StatementProvider } from '../../core/provider';

export interface ReconciliationActivityDeps {
  sequelize: Sequelize;
  provider: PixProvider;
  statementProvider?: StatementProvider;
  logger: Logger;
}

export interface ReconciliationDeps {
  sequelize: Sequelize;
  /** The worker's logger; the steps log on children of it. */
  logger: Logger;
  /** Who serves the statement: the statement provider given, or the provider when it serves one. */
  statements?: StatementProvider;
}

export function reconciliationDeps(deps: ReconciliationActivityDeps): ReconciliationDeps {
  return {
    sequelize: deps.sequelize,
    logger: deps.logger,
    statements: deps.statementProvider ?? (isStatementProvider(deps.provider) ? deps.provider : undefined),
  };
}

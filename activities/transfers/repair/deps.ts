/** What the repair steps are given: the worker's (or the operator CLI's) dependencies, and what is built from them once. */
import type { Logger } from 'pino';
import type { Sequelize } from 'sequelize';
import type { PixProvider, PspAccounts } from '../../../core/provider';
import { withdrawalDeps, type WithdrawalDeps } from '../../withdrawals/deps';
import { providerOfTransfer } from '../transferAccounts';
import { createTransferPath, type TransferPath } from '../transferPath';

export interface ReconcileDeps {
  sequelize: Sequelize;
  provider: PixProvider;
  /** Merchants' own accounts (issue 37); default: the platform's for all. */
  accounts?: PspAccounts;
  logger: Logger;
}

export interface RepairDeps {
  sequelize: Sequelize;
  /** What the withdrawal steps a repair settles and releases with are given. */
  withdrawals: WithdrawalDeps;
  /** The one transfer path, as the payout steps a repair resolves items with take it too. */
  transfers: TransferPath;
}

export function repairDeps(deps: ReconcileDeps): RepairDeps {
  const { sequelize, provider, logger } = deps;
  return {
    sequelize,
    withdrawals: withdrawalDeps({ sequelize, provider, logger }),
    transfers: createTransferPath(providerOfTransfer(deps), logger),
  };
}

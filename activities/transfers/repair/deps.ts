/** What the repair steps are given: the worker's (or the operator CLI's) dependencies, and what is built from them once. */
import type { Logger } from 'pino';
import type { Sequelize } from 'sequelize';
import type { PixProvider } from '../../../core/provider';
import { createPayoutActivities } from '../../payouts';
import { withdrawalDeps, type WithdrawalDeps } from '../../withdrawals/deps';
import { createTransferPath, type TransferPath } from '../transferPath';

export interface ReconcileDeps {
  sequelize: Sequelize;
  provider: PixProvider;
  logger: Logger;
}

export interface RepairDeps {
  sequelize: Sequelize;
  /** The payout steps a repair resolves items and finishes batches with. */
  payouts: ReturnType<typeof createPayoutActivities>;
  /** What the withdrawal steps a repair settles and releases with are given. */
  withdrawals: WithdrawalDeps;
  transfers: TransferPath;
}

export function repairDeps(deps: ReconcileDeps): RepairDeps {
  return {
    sequelize: deps.sequelize,
    payouts: createPayoutActivities(deps),
    withdrawals: withdrawalDeps(deps),
    transfers: createTransferPath(deps.provider, deps.logger),
  };
}

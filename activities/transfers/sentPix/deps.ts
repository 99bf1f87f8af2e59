/** What the send-notice steps are given: the worker's dependencies, and what is built from them once. */
import type { Logger } from 'pino';
import type { Sequelize } from 'sequelize';
import type { PixProvider, PspAccounts } from '../../../core/provider';
import { repairDeps, type RepairDeps } from '../repair/deps';
import { providerOfTransfer } from '../transferAccounts';
import { createTransferPath, type TransferPath } from '../transferPath';

export interface SentPixActivityDeps {
  sequelize: Sequelize;
  provider: PixProvider;
  /** Merchants' own accounts (issue 37); default: the platform's for all. */
  accounts?: PspAccounts;
  logger: Logger;
}

export interface SentPixDeps {
  sequelize: Sequelize;
  logger: Logger;
  transfers: TransferPath;
  /** The janitor's repair (repair/reconciler.ts), for a send whose workflow is gone. */
  repair: RepairDeps;
}

export function sentPixDeps(deps: SentPixActivityDeps): SentPixDeps {
  return {
    sequelize: deps.sequelize,
    logger: deps.logger,
    transfers: createTransferPath(providerOfTransfer(deps), deps.logger),
    repair: repairDeps(deps),
  };
}

/** What the split send steps are given: the worker's dependencies, and the one transfer path built from them. */
import type { Logger } from 'pino';
import type { Sequelize } from 'sequelize';
import type { PixProvider, PspAccounts } from '../../core/provider';
import { providerOfTransfer } from '../transfers/transferAccounts';
import { createTransferPath, type TransferPath } from '../transfers/transferPath';

export interface SplitSendActivityDeps {
  sequelize: Sequelize;
  provider: PixProvider;
  /** Merchants' own accounts (issue 37): a split send leaves the charge owner's. */
  accounts?: PspAccounts;
  logger: Logger;
}

export interface SplitSendDeps {
  sequelize: Sequelize;
  logger: Logger;
  transfers: TransferPath;
}

export function splitSendDeps(deps: SplitSendActivityDeps): SplitSendDeps {
  return {
    sequelize: deps.sequelize,
    logger: deps.logger,
    transfers: createTransferPath(providerOfTransfer(deps), deps.logger),
  };
}

/** What the withdrawal steps are given: the worker's dependencies, and what is built from them once. */
import type { Logger } from 'pino';
import type { Sequelize } from 'sequelize';
import { DEFAULT_PLATFORM_INSTITUTION_NAME } from '../../config';
import type { PixProvider, PspAccounts } from '../../core/provider';
import { providerOfTransfer } from '../transfers/transferAccounts';
import { createTransferPath, type TransferPath } from '../transfers/transferPath';

export interface WithdrawalActivityDeps {
  sequelize: Sequelize;
  provider: PixProvider;
  /** Merchants' own accounts (issue 37); default: the platform's for all. */
  accounts?: PspAccounts;
  logger: Logger;
  /** config.platformInstitutionName: the source account's institution; default config.ts's. */
  platformInstitution?: string;
}

export interface WithdrawalDeps {
  sequelize: Sequelize;
  provider: PixProvider;
  logger: Logger;
  transfers: TransferPath;
  platformInstitution: string;
}

export function withdrawalDeps(deps: WithdrawalActivityDeps): WithdrawalDeps {
  return {
    sequelize: deps.sequelize,
    provider: deps.provider,
    logger: deps.logger,
    transfers: createTransferPath(providerOfTransfer(deps), deps.logger),
    platformInstitution: deps.platformInstitution ?? DEFAULT_PLATFORM_INSTITUTION_NAME,
  };
}

/** What the payout activities run with (apart from index.ts, which lists the steps that take it). */
import type { Logger } from 'pino';
import type { Sequelize } from 'sequelize';
import type { PixProvider, PspAccounts } from '../../core/provider';
import type { TransferPath } from '../transfers/transferPath';

export interface PayoutActivityDeps {
  sequelize: Sequelize;
  provider: PixProvider;
  /** Merchants' own accounts (issue 37): a batch is paid from the account it was staged at; default: the platform's for all. */
  accounts?: PspAccounts;
  logger: Logger;
}

/** What the payout activities run with: the worker's dependencies and the one transfer path, built once. */
export interface PayoutDeps extends PayoutActivityDeps {
  transfers: TransferPath;
}

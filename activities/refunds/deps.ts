/** What the refund steps are given: the worker's dependencies, and what is built from them once. */
import type { Logger } from 'pino';
import type { Sequelize } from 'sequelize';
import type { PixProvider, PspAccounts } from '../../core/provider';
import { CheckoutEffects, checkoutBaseUrl } from '../checkouts/checkoutEffects';
import { providerOfTransfer } from '../transfers/transferAccounts';
import { createTransferPath, type TransferPath } from '../transfers/transferPath';

export interface RefundActivityDeps {
  sequelize: Sequelize;
  provider: PixProvider;
  /** Merchants' own accounts (issue 37); default: the platform's for all. */
  accounts?: PspAccounts;
  logger: Logger;
  /** Where checkout pages live (checkout.refunded payloads); see checkoutBaseUrl. */
  publicBaseUrl?: string;
  providerCallbackUrl?: string;
}

export interface RefundDeps {
  sequelize: Sequelize;
  provider: PixProvider;
  transfers: TransferPath;
  checkouts: CheckoutEffects;
}

export function refundDeps(deps: RefundActivityDeps): RefundDeps {
  return {
    sequelize: deps.sequelize,
    provider: deps.provider,
    transfers: createTransferPath(providerOfTransfer(deps), deps.logger),
    checkouts: new CheckoutEffects(deps.sequelize, checkoutBaseUrl(deps)),
  };
}

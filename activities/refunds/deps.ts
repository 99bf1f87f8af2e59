/** What the refund steps are given: the worker's dependencies, and what is built from them once. */
import type { Logger } from 'pino';
import type { Sequelize } from 'sequelize';
import type { PixProvider } from '../../core/provider';
import { CheckoutEffects, checkoutBaseUrl } from '../checkouts/checkoutEffects';
import { createTransferPath, type TransferPath } from '../transfers/transferPath';

export interface RefundActivityDeps {
  sequelize: Sequelize;
  provider: PixProvider;
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
    transfers: createTransferPath(deps.provider, deps.logger),
    checkouts: new CheckoutEffects(deps.sequelize, checkoutBaseUrl(deps)),
  };
}

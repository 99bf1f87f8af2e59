/**
 * Which provider a transfer's reference is sent through: the account its refund's charge or its
 * payout's batch was recorded at (db/connections/accountOfTransfer.ts), through the worker's
 * directory of accounts; the platform's where nothing names another.
 */
import type { Sequelize } from 'sequelize';
import { platformOnly, type PixProvider, type PspAccounts } from '../../core/provider';
import { accountOfTransfer } from '../../db/connections';
import type { ProviderOfTransfer } from './transferPath';

export function providerOfTransfer(deps: {
  sequelize: Sequelize;
  provider: PixProvider;
  accounts?: PspAccounts;
}): ProviderOfTransfer {
  const accounts = deps.accounts ?? platformOnly(deps.provider);
  return async (reference) => {
    const connectionId = await accountOfTransfer(deps.sequelize, reference);
    return (await accounts.forConnection(connectionId)).provider;
  };
}

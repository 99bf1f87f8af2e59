/**
 * The API's answers about a merchant's account model (issue 37, docs/account-models.md): where a
 * route would move money through the platform's account, a connected merchant is refused with our
 * code, and a merchant whose connection was revoked is told so, before anything is stored.
 */
import type { Sequelize } from 'sequelize';
import { undividedChargeFee } from '../../core/charges/issueRules';
import type { AccountModelDefault } from '../../core/provider';
import { pspConnectionStore } from '../../db/connections';
import { ApiError } from '../errors/apiError';

export const accountModelErrors = {
  connectionRevoked: () =>
    new ApiError(
      409,
      'PSP_CONNECTION_REVOKED',
      'your PSP connection was revoked: register a new one before charging or sending money',
    ),
  connectionRequired: () =>
    new ApiError(
      409,
      'PSP_CONNECTION_REQUIRED',
      'this platform holds no merchant’s money: register your own PSP connection before charging or sending money',
    ),
  /** The PSP cannot divide the charge as asked; the message names the recipient and why (our words). */
  splitNotPossible: (message: string) => new ApiError(422, 'SPLIT_NOT_POSSIBLE', message),
  moneyInOwnAccount: () =>
    new ApiError(
      409,
      'MONEY_IN_OWN_ACCOUNT',
      'your money is already in your own PSP account (connected account model): move it from there; nothing passes through the platform',
    ),
};

/** The connection to send from (null: the platform's account); refused when the merchant's connection is revoked. */
export async function sendingAccount(
  sequelize: Sequelize,
  merchantId: string,
  withoutConnection: AccountModelDefault = 'platform',
): Promise<string | null> {
  const account = await pspConnectionStore.merchantAccountModel(sequelize, merchantId, withoutConnection);
  if (account.model === 'CONNECTED_REVOKED') throw accountModelErrors.connectionRevoked();
  if (account.model === 'CONNECTION_REQUIRED') throw accountModelErrors.connectionRequired();
  return account.model === 'CONNECTED' ? account.connectionId : null;
}

/**
 * A boleto is issued at the merchant's account: the platform's, or its own connection's (Efí's API
 * Cobranças, paid into its account: activities/boletos). Refused only when there is no account to
 * issue it at: a revoked connection, or none where the platform holds nobody's money. Answers the
 * connection (null: the platform's account), which decides the boleto's fee (boletoFeeCents).
 */
export async function boletoAccountCheck(
  sequelize: Sequelize,
  merchantId: string,
  withoutConnection: AccountModelDefault = 'platform',
): Promise<string | null> {
  return sendingAccount(sequelize, merchantId, withoutConnection);
}

/**
 * A boleto's platform fee as recorded at creation: on the platform's account the merchant's
 * (chargeFee), taken by the ledger; on a connected merchant's own account none, because the PSP
 * pays the whole boleto into that account and divides nothing for the platform (Efí's marketplace
 * repasses are percentages whose rounding Efí does not publish, so a fee in cents could not be
 * matched exactly): the charge shows what the PSP divides, and the ledger mirrors it
 * (activities/boletos/settleBoleto.ts). docs/account-models.md, "boletos".
 */
export function boletoFeeCents(connectionId: string | null, platformFeeCents: number): number {
  return undividedChargeFee(connectionId, platformFeeCents);
}

/**
 * Withdrawals and settlements move the merchant's money from the platform's account to its bank
 * key: a connected merchant's money was never there, so they are refused with MONEY_IN_OWN_ACCOUNT.
 * A merchant without a connection may always withdraw what the platform's account still holds
 * for it (ACCOUNT_MODEL_DEFAULT only stops new money coming in there).
 */
export async function refuseConnectedWithdrawal(sequelize: Sequelize, merchantId: string): Promise<void> {
  const account = await pspConnectionStore.merchantAccountModel(sequelize, merchantId);
  if (account.model !== 'PLATFORM') throw accountModelErrors.moneyInOwnAccount();
}

/**
 * The withdrawal's reservation: it is paid to the merchant's own Pix key, snapshotted here;
 * amount + fee are reserved (an all-available request reads the balance under the merchant
 * lock); it may carry a settlement, whose row commits with the reservation.
 */
import { pspConnectionStore } from '../../db/connections';
import { ApplicationFailure } from '@temporalio/activity';
import type { Transaction } from 'sequelize';
import { accounts } from '../../core/ledger/accounts';
import { moneyOutRefusal } from '../../core/identity/moneyOut';
import { movements, reserve } from '../../core/ledger/postings';
import { beneficiarySnapshot, sourceAccountSnapshot, withdrawalFee } from '../../core/withdrawals/rules';
import type { Merchant } from '../../db/identity';
import { settlementStore } from '../../db/settlements';
import { withdrawalStore } from '../../db/withdrawals';
import {
  WithdrawalFailureTypes,
  type ReservedWithdrawal,
  type WithdrawalInput,
} from '../../workflows/withdrawals/types';
import { InsufficientBalanceError, balanceOf, writeLedgerEntry } from '../ledger/ledgerWriter';
import { lockMerchantForReserve } from '../transfers/transferSteps';
import type { WithdrawalDeps } from './deps';
import { moneyOf, reservedFrom } from './row';

/** Stores the withdrawal and reserves amount + fee in one DB transaction, or refuses and stores nothing. */
export async function reserveWithdrawal(deps: WithdrawalDeps, input: WithdrawalInput): Promise<ReservedWithdrawal> {
  // What the refusal says was required: amount + fee, once the transaction knows them.
  const required = { cents: input.amountCents };
  try {
    return await deps.sequelize.transaction((transaction) => reserveIn(deps, input, required, transaction));
  } catch (err) {
    if (!(err instanceof InsufficientBalanceError)) throw err;
    const availableCents = await balanceOf(deps.sequelize, accounts.merchantAvailable(input.merchantId));
    throw ApplicationFailure.create({
      message: 'the available balance does not cover the amount plus the withdrawal fee',
      type: WithdrawalFailureTypes.insufficientBalance,
      nonRetryable: true,
      details: [{ requiredCents: required.cents, availableCents }],
    });
  }
}

async function reserveIn(
  deps: WithdrawalDeps,
  input: WithdrawalInput,
  required: { cents: number },
  transaction: Transaction,
): Promise<ReservedWithdrawal> {
  const { sequelize } = deps;
  const existing = await withdrawalStore.findWithdrawal(input.withdrawalId, transaction);
  if (existing) return reservedFrom(existing); // a retry after a commit whose answer was lost
  const merchant = await lockPayableMerchant(deps, input, transaction);
  // Read after the merchant's lock, which registering a connection takes too: a connection
  // registered meanwhile is seen here, so no withdrawal leaves the platform's account for it.
  if ((await pspConnectionStore.merchantAccountModel(sequelize, merchant.id)).model !== 'PLATFORM')
    throw refusal(
      "the merchant's money is in its own PSP account (connected model), not the platform's",
      WithdrawalFailureTypes.moneyInOwnAccount,
    );
  const beneficiary = beneficiarySnapshot(merchant);
  if (!beneficiary)
    throw refusal('the merchant has no Pix key registered for withdrawals', WithdrawalFailureTypes.pixKeyMissing);
  const feeCents = withdrawalFee(merchant);
  // "All available" is computed here, under the merchant lock, so no concurrent
  // reservation of this merchant can slip in between the read and the debit.
  const amountCents = input.allAvailable
    ? (await balanceOf(sequelize, accounts.merchantAvailable(merchant.id), transaction)) - feeCents
    : input.amountCents;
  required.cents = Math.max(amountCents, 1) + feeCents;
  if (amountCents <= 0) throw new InsufficientBalanceError(accounts.merchantAvailable(merchant.id));
  const row = await withdrawalStore.createWithdrawal(
    {
      id: input.withdrawalId,
      merchantId: merchant.id,
      userId: input.userId,
      amountCents,
      feeCents,
      totalDebitedCents: required.cents,
      status: 'PROCESSING',
      description: input.description,
      // A settlement's key is the settlement's (bound on its row): the withdrawal under it
      // repeats none, so a merchant's withdrawal and settlement may share a key.
      idempotencyKey: input.settlement ? null : input.idempotencyKey,
      partnerTxId: null,
      providerTransferId: null,
      providerEndToEndId: null,
      failureCode: null,
      failureReason: null,
      beneficiarySnapshot: beneficiary,
      sourceAccountSnapshot: sourceAccountSnapshot(merchant, deps.platformInstitution),
      processedAt: null,
    },
    transaction,
  );
  await writeLedgerEntry(sequelize, reserve(movements.withdrawal(row.id).reserve, moneyOf(row).shares), transaction);
  if (input.settlement)
    await settlementStore.insertSettlement(sequelize, input.settlement, row, input.idempotencyKey, transaction);
  return reservedFrom(row);
}

/** The merchant, locked, active and not frozen, whose request's key made nothing yet. */
async function lockPayableMerchant(
  deps: WithdrawalDeps,
  input: WithdrawalInput,
  transaction: Transaction,
): Promise<Merchant> {
  // A key change lands wholly before or after this request too.
  const merchant = (await lockMerchantForReserve(transaction, input.merchantId, (m) => {
    const held = moneyOutRefusal(m);
    if (held === 'MERCHANT_INACTIVE')
      throw refusal('the merchant is not active', WithdrawalFailureTypes.merchantInactive);
    if (held === 'WITHDRAWAL_FROZEN')
      throw refusal('withdrawals are frozen for this merchant', WithdrawalFailureTypes.frozen);
  })) as Merchant;
  // One key, one withdrawal or settlement (withdrawals_one_per_key, settlements_one_per_key),
  // under the merchant's lock; the API answers the one the key already made.
  const bound = await boundToKey(deps, input, transaction);
  if (bound)
    throw refusal('this idempotency key already made a withdrawal of the merchant', WithdrawalFailureTypes.keyBound, {
      boundTo: bound,
    });
  return merchant;
}

/** The withdrawal (or settlement) id this request's idempotency key already made, if any. */
export async function boundToKey(
  deps: Pick<WithdrawalDeps, 'sequelize'>,
  input: WithdrawalInput,
  transaction: Transaction,
): Promise<string | null> {
  const key = input.idempotencyKey;
  if (!key) return null;
  if (input.settlement)
    return (await settlementStore.settlementOfKey(deps.sequelize, input.merchantId, key, transaction))?.id ?? null;
  return (await withdrawalStore.withdrawalOfKey(input.merchantId, key, transaction))?.id ?? null;
}

function refusal(message: string, type: string, details?: Record<string, unknown>): ApplicationFailure {
  return ApplicationFailure.create({ message, type, nonRetryable: true, details: details ? [details] : [] });
}

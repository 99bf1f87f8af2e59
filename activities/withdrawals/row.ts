/** One withdrawal's row as the steps read and answer it. */
import { ApplicationFailure } from '@temporalio/activity';
import { withdrawalMoney } from '../../core/ledger/postings';
import { withdrawalStore, type Withdrawal } from '../../db/withdrawals';
import { WithdrawalFailureTypes, type ReservedWithdrawal } from '../../workflows/withdrawals/types';

export async function findWithdrawal(withdrawalId: string): Promise<Withdrawal> {
  const withdrawal = await withdrawalStore.findWithdrawal(withdrawalId);
  if (!withdrawal) throw notFound(withdrawalId);
  return withdrawal;
}

export function notFound(withdrawalId: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(`withdrawal ${withdrawalId} not found`, WithdrawalFailureTypes.stateConflict);
}

export function moneyOf(w: Withdrawal) {
  return withdrawalMoney({ merchantId: w.merchantId, amountCents: w.amountCents, feeCents: w.feeCents });
}

export function reservedFrom(w: Withdrawal): ReservedWithdrawal {
  return {
    withdrawalId: w.id,
    status: w.status,
    amountCents: w.amountCents,
    feeCents: w.feeCents,
    totalDebitedCents: w.totalDebitedCents,
  };
}

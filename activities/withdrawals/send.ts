import { ApplicationFailure, Context } from '@temporalio/activity';
import { PSP_BALANCE_INSUFFICIENT } from '../../core/transfers/failures';
import type { Withdrawal } from '../../db/withdrawals';
import { WithdrawalFailureTypes } from '../../workflows/withdrawals/types';
import { accountCovers } from '../transfers/accountBalance';
import { sendTransfer } from '../transfers/transferSteps';
import type { WithdrawalDeps } from './deps';
import { findWithdrawal } from './row';
import { settleOrReleaseWithdrawal, type WithdrawalStep } from './settle';

/**
 * Sends the reserved withdrawal and settles or releases it at once when the provider's answer
 * is known; UNCONFIRMED when the provider has no record of it (the workflow waits the grace
 * period, then resolveWithdrawal). A withdrawal no longer PROCESSING is not sent: its status.
 */
export async function sendWithdrawal(deps: WithdrawalDeps, args: { withdrawalId: string }): Promise<WithdrawalStep> {
  const withdrawal = await findWithdrawal(args.withdrawalId);
  if (withdrawal.status !== 'PROCESSING') return withdrawal.status;
  const retry = Context.current().info.attempt > 1;
  // Only before the first attempt: after one, a send may have gone and only its record decides.
  if (!retry && !(await accountCovers(deps.provider, withdrawal.amountCents, deps.logger)))
    return settleOrReleaseWithdrawal(deps, withdrawal.id, {
      kind: 'RELEASE',
      providerTransferId: null,
      failure: PSP_BALANCE_INSUFFICIENT,
      cancelled: false,
    });
  const sent = await sendTransfer(deps.transfers, transferOf(withdrawal), {
    // A later attempt may follow one whose answer was lost: the provider's record comes first.
    retry,
  });
  if (sent.kind === 'UNCONFIRMED') return 'UNCONFIRMED';
  return settleOrReleaseWithdrawal(deps, withdrawal.id, sent);
}

/** The transfer of a reserved withdrawal, to the key snapshotted with it (the withdrawal id is the key). */
export function transferOf(withdrawal: Withdrawal) {
  const beneficiary = withdrawal.beneficiarySnapshot;
  if (!beneficiary)
    throw ApplicationFailure.nonRetryable(
      `withdrawal ${withdrawal.id} has no beneficiary`,
      WithdrawalFailureTypes.stateConflict,
    );
  return {
    reference: withdrawal.id,
    amountCents: withdrawal.amountCents,
    pixKey: beneficiary.pixKey,
    pixKeyType: beneficiary.pixKeyType,
    recipientName: beneficiary.name,
    recipientDocument: beneficiary.document,
  };
}

/**
 * Withdrawal activities: the withdrawal's reserve, send, settle and release on the one outbound
 * transfer path (activities/transfers/transferSteps.ts states its rules). What a withdrawal adds:
 * it is paid to the merchant's own Pix key, snapshotted when reserved; amount + fee are reserved
 * (an all-available request reads the balance under the merchant lock); it may carry a
 * settlement, whose row commits with the reservation; a reserve given up leaves a FAILED
 * tombstone, bound to the request's idempotency key and announced as withdrawal.failed, and one
 * that committed after all is released, not sent.
 */
import type { TransferOutcome, WithdrawalInput } from '../../workflows/withdrawals/types';
import { findWithdrawalTransfer, sendWithdrawalTransfer } from './beforeOutboundTransfer';
import { withdrawalDeps, type WithdrawalActivityDeps } from './deps';
import { reserveWithdrawal } from './reserve';
import { resolveWithdrawal } from './resolve';
import { sendWithdrawal } from './send';
import { completeWithdrawal, failWithdrawal, type FailWithdrawal } from './settle';

export function createWithdrawalActivities(activityDeps: WithdrawalActivityDeps) {
  const deps = withdrawalDeps(activityDeps);
  return {
    reserveWithdrawal: (input: WithdrawalInput) => reserveWithdrawal(deps, input),
    sendWithdrawal: (args: { withdrawalId: string }) => sendWithdrawal(deps, args),
    resolveWithdrawal: (args: { withdrawalId: string; cancelled?: boolean }) => resolveWithdrawal(deps, args),
    // Only runs started before patch outbound-transfer-v1 call these two (see the file).
    sendWithdrawalTransfer: (args: { withdrawalId: string }) => sendWithdrawalTransfer(deps, args),
    findWithdrawalTransfer: (args: { withdrawalId: string }) => findWithdrawalTransfer(deps, args),
    completeWithdrawal: (args: { withdrawalId: string; transfer: TransferOutcome }) => completeWithdrawal(deps, args),
    failWithdrawal: (args: FailWithdrawal) => failWithdrawal(deps, args),
  };
}

export type WithdrawalActivities = ReturnType<typeof createWithdrawalActivities>;

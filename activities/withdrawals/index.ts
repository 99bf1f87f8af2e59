/**
 * Withdrawal activities: the withdrawal's reserve, send, settle and release on the one outbound
 * transfer path (activities/transfers/transferSteps.ts states its rules). What a withdrawal adds:
 * it is paid to the merchant's own Pix key, snapshotted when reserved; amount + fee are reserved
 * (an all-available request reads the balance under the merchant lock); it may carry a
 * settlement, whose row commits with the reservation; a reserve given up leaves a FAILED
 * tombstone, bound to the request's idempotency key and announced as withdrawal.failed, and one
 * that committed after all is released, not sent.
 */
import { findWithdrawalTransfer, sendWithdrawalTransfer } from './beforeOutboundTransfer';
import { withdrawalDeps, type WithdrawalActivityDeps } from './deps';
import { reserveWithdrawal } from './reserve';
import { resolveWithdrawal } from './resolve';
import { sendWithdrawal } from './send';
import { completeWithdrawal, failWithdrawal } from './settle';

export function createWithdrawalActivities(activityDeps: WithdrawalActivityDeps) {
  const deps = withdrawalDeps(activityDeps);
  return {
    reserveWithdrawal: (input: Parameters<typeof reserveWithdrawal>[1]) => reserveWithdrawal(deps, input),
    sendWithdrawal: (args: Parameters<typeof sendWithdrawal>[1]) => sendWithdrawal(deps, args),
    resolveWithdrawal: (args: Parameters<typeof resolveWithdrawal>[1]) => resolveWithdrawal(deps, args),
    // Only runs started before patch outbound-transfer-v1 call these two (see the file).
    sendWithdrawalTransfer: (args: Parameters<typeof sendWithdrawalTransfer>[1]) => sendWithdrawalTransfer(deps, args),
    findWithdrawalTransfer: (args: Parameters<typeof findWithdrawalTransfer>[1]) => findWithdrawalTransfer(deps, args),
    completeWithdrawal: (args: Parameters<typeof completeWithdrawal>[1]) => completeWithdrawal(deps, args),
    failWithdrawal: (args: Parameters<typeof failWithdrawal>[1]) => failWithdrawal(deps, args),
  };
}

export type WithdrawalActivities = ReturnType<typeof createWithdrawalActivities>;

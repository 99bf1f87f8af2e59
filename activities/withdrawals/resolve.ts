import { resolveTransfer } from '../transfers/transferSteps';
import type { WithdrawalDeps } from './deps';
import { findWithdrawal } from './row';
import { settleOrReleaseWithdrawal, type WithdrawalStep } from './settle';

/**
 * After the grace period: the provider's record settles or releases the withdrawal; with none,
 * nothing was sent and the reserve goes back (CANCELLED when an operator cancelled the run).
 */
export async function resolveWithdrawal(
  deps: WithdrawalDeps,
  args: { withdrawalId: string; cancelled?: boolean },
): Promise<WithdrawalStep> {
  const withdrawal = await findWithdrawal(args.withdrawalId);
  if (withdrawal.status !== 'PROCESSING') return withdrawal.status;
  const decision = await resolveTransfer(
    deps.transfers,
    { reference: withdrawal.id, amountCents: withdrawal.amountCents },
    { cancelled: args.cancelled },
  );
  return settleOrReleaseWithdrawal(deps, withdrawal.id, decision);
}

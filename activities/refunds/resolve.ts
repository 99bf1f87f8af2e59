import { refundStore } from '../../db/refunds';
import { resolveTransfer } from '../transfers/transferSteps';
import type { RefundDeps } from './deps';
import { lookupOf } from './send';
import { settleOrReleaseRefund, type RefundStepOutcome } from './settle';

/**
 * After the grace period: the provider's record decides; with none, nothing was sent and the
 * shares go back (`cancelled`: an operator cancelled the parked refund).
 */
export async function resolveRefund(
  deps: RefundDeps,
  args: { refundId: string; cancelled?: boolean },
): Promise<RefundStepOutcome> {
  const refund = await refundStore.findRefund(args.refundId);
  if (!refund || refund.status !== 'PROCESSING') return 'SKIPPED';
  const decision = await resolveTransfer(deps.transfers, await lookupOf(refund), { cancelled: args.cancelled });
  return settleOrReleaseRefund(deps, refund.id, decision);
}

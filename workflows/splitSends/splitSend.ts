/**
 * SplitSend (workflow id `split-send-<id>`): a connected merchant's split recipient whose account
 * is at another PSP is paid by a Pix from the merchant's own account after settlement, with the
 * merchant's connection, on the one outbound-transfer path (workflows/transfers/outboundTransfer.ts
 * states its money rules): send (the row's id, derived from the charge and the recipient, is the
 * idempotency key) → settle, or, with no record at the provider, TRANSFER_GRACE then the record.
 *
 * What a split send adds:
 * - Its reserve is made by the charge's settlement (the share credited to the owner's reserved in
 *   the CHARGE_PAID entry, the row made PENDING in the same transaction), so there is no reserve
 *   step and nothing to refuse: the money is in the owner's account already.
 * - Started by the activity that committed that settlement, before it returns (so a worker that
 *   dies in between makes the activity, and the start, run again), and by the janitor for any
 *   PENDING row whose run is gone. A second start of the same id finds the run, or a row already
 *   decided, or at worst sends again under the same idempotency key: the PSP pays once.
 * - A refusal does not give the money back to the owner: it is the recipient's. The row ends
 *   FAILED, the share stays reserved in the owner's account, alerted (docs/account-models.md).
 * - No cancel: a share owed to a recipient is sent, or decided by the provider's record.
 */
import { proxyActivities, type RetryPolicy } from '@temporalio/workflow';
import type { SplitSendActivities } from '../../activities/splitSends';
import { sendAndSettle } from '../transfers/outboundTransfer';
import { SplitSendFailureTypes, type SplitSendInput, type SplitSendOutcome } from './types';

const retry: RetryPolicy = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '1 minute',
  nonRetryableErrorTypes: [SplitSendFailureTypes.stateConflict],
};
// The send is retried while the provider is unreachable; its later attempts ask the provider first.
const sending = proxyActivities<SplitSendActivities>({ startToCloseTimeout: '30 seconds', retry });
// Recording the outcome must eventually happen: retry until it does.
const settling = proxyActivities<SplitSendActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { ...retry, maximumInterval: '5 minutes' },
});

export async function splitSend(input: SplitSendInput): Promise<SplitSendOutcome> {
  const status = await sendAndSettle({
    send: () => sending.sendSplitShare(input),
    resolve: () => settling.resolveSplitShare(input),
  });
  return { splitSendId: input.splitSendId, status };
}

/**
 * Whose send a reference names (a withdrawal, or a payout item of a batch), in the state that
 * decides what a notice about it may change, and whether the workflow that owns its money runs.
 * Read by the notice route (db/charges/paymentClaims.ts) and the notice's run
 * (activities/transfers/sentPix/follow.ts) alike; whether that workflow runs: core/temporal's
 * workflowRunning.
 */
import { payoutBatchWorkflowId } from '../../workflows/payouts/definitions';
import { withdrawalWorkflowId } from '../../workflows/withdrawals/definitions';
import { payoutStore } from '../payouts';
import { withdrawalStore } from '../withdrawals';

/** Whose send it is: a withdrawal, a payout item (of a batch), or none of ours we can credit. */
export type SendOwner =
  | { type: 'withdrawal'; id: string; merchantId: string; sentCents: number; settled: boolean; reserved: boolean }
  | {
      type: 'payout_item';
      id: string;
      batchId: string;
      merchantId: string;
      sentCents: number;
      settled: boolean;
      reserved: boolean;
    };

export async function sendOwnerOf(reference: string): Promise<SendOwner | null> {
  const withdrawal = await withdrawalStore.findWithdrawal(reference);
  if (withdrawal)
    return {
      type: 'withdrawal',
      id: withdrawal.id,
      merchantId: withdrawal.merchantId,
      sentCents: withdrawal.amountCents,
      settled: withdrawal.status === 'COMPLETED',
      reserved: withdrawal.status === 'PROCESSING',
    };
  const item = await payoutStore.findItem(reference);
  if (item)
    return {
      type: 'payout_item',
      id: item.id,
      batchId: item.batchId,
      merchantId: item.merchantId,
      sentCents: item.amountCents,
      settled: item.status === 'PAID',
      reserved: item.status === 'SENDING',
    };
  return null;
}

/** The workflow that owns the send's money while it runs: the withdrawal's, or the item's batch's. */
export function ownerWorkflowId(owner: SendOwner): string {
  return owner.type === 'withdrawal' ? withdrawalWorkflowId(owner.id) : payoutBatchWorkflowId(owner.batchId);
}

/**
 * The provider's record settles items that may have reached it (`resolveItem`), a few at a
 * time: one piece for the batch (items a stopped chunk left SENDING) and for a chunk (items the
 * provider refused to take, after the grace period).
 */
import { proxyActivities } from '@temporalio/workflow';
import type { PayoutActivities } from '../../activities/payouts';
import { isFinalFailure } from '../transfers/outboundTransfer';

// Settling an item the provider may have paid must eventually happen: retry until it does.
const { resolveItem } = proxyActivities<PayoutActivities>({
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '2 minutes' },
});

/**
 * Resolves each item, `concurrency` at a time. A transfer that is not ours (reference or amount
 * differ) stays SENDING, alerted: the batch then waits in finishBatch, visibly, until someone looks.
 */
export async function resolveItems(itemIds: string[], concurrency: number): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < itemIds.length) {
      const itemId = itemIds[next++];
      try {
        await resolveItem({ itemId });
      } catch (err) {
        if (!isFinalFailure(err)) throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, itemIds.length)) }, lane));
}

/**
 * PayoutChunk (child of PayoutBatch, id `payout-batch-<id>-chunk-<n>`): pays the items of one
 * row range with bounded concurrency. On cancel it starts no new item, but each transfer already
 * started runs to its end in a non-cancellable scope: money sent to the provider is never
 * abandoned half-way, so it is settled, not released.
 */
import { CancellationScope, proxyActivities } from '@temporalio/workflow';
import type { PayoutActivities } from '../../activities/payouts';
import type { ChunkInput, ChunkResult } from './types';

const { listChunkItemIds } = proxyActivities<PayoutActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

// Transient provider errors retry with backoff until the transfer's outcome is known.
const { payItem } = proxyActivities<PayoutActivities>({
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '2 minutes' },
});

export async function payoutChunk(input: ChunkInput): Promise<ChunkResult> {
  const root = CancellationScope.current();
  const ids = await listChunkItemIds({ batchId: input.batchId, fromRow: input.fromRow, toRow: input.toRow });
  const result: ChunkResult = { paid: 0, failed: 0, skipped: 0 };
  let next = 0;
  const lane = async () => {
    while (next < ids.length && !root.consideredCancelled) {
      const itemId = ids[next++];
      const outcome = await CancellationScope.nonCancellable(() => payItem({ itemId }));
      if (outcome === 'PAID') result.paid++;
      else if (outcome === 'FAILED') result.failed++;
      else result.skipped++;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(input.itemConcurrency, ids.length)) }, lane));
  return result;
}

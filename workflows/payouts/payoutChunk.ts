/**
 * PayoutChunk (child of PayoutBatch, id `payout-batch-<id>-chunk-<n>`): pays the items of one
 * row range on the one outbound-transfer path (workflows/transfers/outboundTransfer.ts states its
 * money rules; the batch reserved their funding), with bounded concurrency.
 *
 * What a chunk adds:
 * - A slice of items per activity (`payItems`: items claimed a wave at a time, sent through a
 *   sliding window, settled as the answers come in), so a 10,000-item batch costs tens of activities, not 10,000, and its
 *   history stays small. The items the provider had no record of are resolved together, after one
 *   grace period, however the chunk was stopped.
 * - On cancel it starts no new call, but a call already started runs in a non-cancellable scope
 *   until it stops claiming (after 2 s, or at once when the batch carries the cancel route's
 *   intent) and has settled every transfer it sent: money sent is settled, not released.
 * - While the merchant is frozen, inactive or has payouts disabled, no item is sent: the chunk
 *   parks (unsent items stay PENDING, the funding stays reserved) and looks again with backoff,
 *   until the merchant may pay out again or the batch is cancelled.
 */
import { CancellationScope, isCancellation, patched, proxyActivities, sleep } from '@temporalio/workflow';
import type { PayoutActivities } from '../../activities/payouts';
import { sendAndSettle, settleAfterGrace } from '../transfers/outboundTransfer';
import { resolveItems } from './resolveItems';
import type { ChunkInput, ChunkResult } from './types';

const { listChunkItemIds } = proxyActivities<PayoutActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

// Transient provider errors retry with backoff until the transfer's outcome is known.
const { payItem, resolveItem } = proxyActivities<PayoutActivities>({
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '2 minutes' },
});

// A slice runs for seconds; the heartbeat lets a killed worker's slice be retried on another in
// seconds rather than at the end of the start-to-close timeout. A retry resumes from the database.
const { payItems } = proxyActivities<PayoutActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '20 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '2 minutes' },
});

const { countChunkItems } = proxyActivities<PayoutActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** Many items per activity (payItems). Chunks started before this patch keep one activity per item. */
const SLICED_PAYMENTS = 'payout-sliced-payments';

/** Parked: first look after a minute, then less often, at most every 15 minutes. */
const PARK_FIRST_MS = 60_000;
const PARK_MAX_MS = 15 * 60_000;

export async function payoutChunk(input: ChunkInput): Promise<ChunkResult> {
  return patched(SLICED_PAYMENTS) ? payInSlices(input) : payOneByOne(input);
}

async function payInSlices(input: ChunkInput): Promise<ChunkResult> {
  const root = CancellationScope.current();
  const sliceSize = Math.max(1, input.sliceSize ?? input.itemConcurrency);
  const unconfirmed: string[] = [];
  let parkMs = PARK_FIRST_MS;
  for (let fromRow = input.fromRow; fromRow <= input.toRow && !root.consideredCancelled;) {
    const toRow = Math.min(fromRow + sliceSize - 1, input.toRow);
    const slice = await CancellationScope.nonCancellable(() =>
      payItems({ batchId: input.batchId, fromRow, toRow, concurrency: input.itemConcurrency }),
    );
    unconfirmed.push(...slice.unconfirmed);
    if (!slice.parked) {
      parkMs = PARK_FIRST_MS;
      // A call stops claiming after a couple of seconds: go on from where it stopped.
      fromRow = slice.resumeFromRow ?? toRow + 1;
      continue;
    }
    // The merchant may not pay out now: unsent items stay PENDING, funding reserved; look again later.
    try {
      await sleep(parkMs);
    } catch (err) {
      if (isCancellation(err)) break; // cancelled while parked: the batch releases what is unsent
      throw err;
    }
    parkMs = Math.min(parkMs * 2, PARK_MAX_MS);
  }
  if (unconfirmed.length > 0) await settleAfterGrace(() => resolveItems(unconfirmed, input.itemConcurrency));
  return CancellationScope.nonCancellable(() =>
    countChunkItems({ batchId: input.batchId, fromRow: input.fromRow, toRow: input.toRow }),
  );
}

async function payOneByOne(input: ChunkInput): Promise<ChunkResult> {
  const root = CancellationScope.current();
  let queue = await listChunkItemIds({ batchId: input.batchId, fromRow: input.fromRow, toRow: input.toRow });
  const result: ChunkResult = { paid: 0, failed: 0, skipped: 0 };
  let parkMs = PARK_FIRST_MS;

  for (;;) {
    const parkedIds: string[] = [];
    let next = 0;
    const lane = async () => {
      while (next < queue.length && !root.consideredCancelled && parkedIds.length === 0) {
        const itemId = queue[next++];
        const outcome = await payOne(itemId);
        if (outcome === 'PARKED') parkedIds.push(itemId);
        else if (outcome === 'PAID') result.paid++;
        else if (outcome === 'FAILED') result.failed++;
        else result.skipped++;
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(input.itemConcurrency, queue.length)) }, lane));
    if (parkedIds.length === 0 || root.consideredCancelled) return result;
    queue = [...parkedIds, ...queue.slice(next)];
    try {
      await sleep(parkMs);
    } catch (err) {
      if (isCancellation(err)) return result; // cancelled while parked: the batch releases what is unsent
      throw err;
    }
    parkMs = Math.min(parkMs * 2, PARK_MAX_MS);
  }
}

/** One item to its end: paid, released, skipped or parked (not sent). */
function payOne(itemId: string): Promise<'PAID' | 'FAILED' | 'SKIPPED' | 'PARKED'> {
  // A final failure (the provider answered with a transfer that is not ours) leaves the item
  // SENDING with its funding reserved: the batch cannot finish until someone looks.
  return sendAndSettle({ send: () => payItem({ itemId }), resolve: () => resolveItem({ itemId }) });
}

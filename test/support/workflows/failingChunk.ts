/**
 * A workflow bundle for tests: the gateway's workflows, except that `payoutChunk` dies with a
 * transfer in flight. It sends its first item once, the provider's answer is lost (the test's
 * provider makes the transfer and times out), and the chunk fails instead of retrying: what a
 * chunk that crashes, or is terminated, leaves behind. The batch must still settle that item by
 * the provider's record and release the rest.
 */
import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { PayoutActivities } from '../../../activities/payouts';
import type { ChunkInput, ChunkResult } from '../../../workflows/payouts/types';

export * from '../../../workflows';

const { listChunkItemIds } = proxyActivities<PayoutActivities>({ startToCloseTimeout: '30 seconds' });
const { payItem } = proxyActivities<PayoutActivities>({
  startToCloseTimeout: '15 seconds',
  retry: { maximumAttempts: 1 },
});

export async function payoutChunk(input: ChunkInput): Promise<ChunkResult> {
  const [first] = await listChunkItemIds({ batchId: input.batchId, fromRow: input.fromRow, toRow: input.toRow });
  await payItem({ itemId: first }).catch(() => undefined);
  throw ApplicationFailure.nonRetryable('test: the chunk died with a transfer in flight', 'ChunkDied');
}

/**
 * PayoutBatch (workflow id `payout-batch-<id>`): reserve the batch's funding → pay items in
 * child workflows, one per row range (history stays small for 10,000+ items) → finish.
 *
 * Cancel — by the cancel update (API) or by cancelling the run in the Temporal Web UI — takes
 * the same path: children stop starting items and wait for the transfers in flight, then
 * `finishBatch` (non-cancellable) marks every unsent item CANCELLED and releases its funding
 * once. Nothing is released twice and nothing paid is released.
 */
import {
  ApplicationFailure,
  CancellationScope,
  allHandlersFinished,
  condition,
  executeChild,
  isCancellation,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { PayoutActivities } from '../../activities/payouts';
import { BusinessStatusKey } from '../searchAttributes';
import { batchProgressQuery, cancelBatchUpdate, reserveBatchUpdate } from './definitions';
import { payoutChunk } from './payoutChunk';
import { PayoutFailureTypes, type BatchOutcome, type BatchReservation, type ChunkResult, type PayoutBatchInput } from './types';

const acts = proxyActivities<PayoutActivities>({
  startToCloseTimeout: '60 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    nonRetryableErrorTypes: [PayoutFailureTypes.insufficientBalance, PayoutFailureTypes.batchNotFound, PayoutFailureTypes.refused],
  },
});

// The reserve is on the synchronous path of POST /v1/payouts/batches: a few quick tries, so the
// request never hangs; then the give-up is made durable (abandonReserve) before answering.
const reserving = proxyActivities<PayoutActivities>({
  startToCloseTimeout: '10 seconds',
  retry: {
    initialInterval: '500 milliseconds',
    backoffCoefficient: 2,
    maximumAttempts: 3,
    nonRetryableErrorTypes: [PayoutFailureTypes.insufficientBalance, PayoutFailureTypes.batchNotFound, PayoutFailureTypes.refused],
  },
});

const RESERVE_REFUSALS: string[] = [PayoutFailureTypes.insufficientBalance, PayoutFailureTypes.batchNotFound, PayoutFailureTypes.refused];

export async function payoutBatch(input: PayoutBatchInput): Promise<BatchOutcome> {
  let phase = 'RESERVING';
  let reservation: BatchReservation | undefined;
  let reserveFailure: ApplicationFailure | undefined;
  let cancelReason: string | null = null;
  let outcome: BatchOutcome | undefined;
  const chunksTotal = Math.ceil(input.itemsCount / input.chunkSize);
  const totals = { chunksDone: 0, paid: 0, failed: 0 };
  const processing = new CancellationScope();

  const setPhase = (next: string) => {
    phase = next;
    upsertSearchAttributes([{ key: BusinessStatusKey, value: next }]);
  };

  setHandler(batchProgressQuery, () => ({ phase, itemsCount: input.itemsCount, chunksTotal, ...totals, cancelReason }));

  setHandler(reserveBatchUpdate, async () => {
    await condition(() => reservation !== undefined || reserveFailure !== undefined);
    if (reserveFailure) throw reserveFailure;
    return reservation as BatchReservation;
  });

  setHandler(
    cancelBatchUpdate,
    async ({ reason }) => {
      cancelReason ??= reason;
      processing.cancel();
      await condition(() => outcome !== undefined);
      return outcome as BatchOutcome;
    },
    {
      validator: ({ reason }) => {
        if (phase !== 'PROCESSING') throw ApplicationFailure.nonRetryable(`batch is ${phase}; only PROCESSING batches can be cancelled`, PayoutFailureTypes.notCancellable);
        if (typeof reason !== 'string' || reason.length > 255) throw new Error('reason must be a string of at most 255 characters');
      },
    },
  );

  setPhase('RESERVING');
  try {
    reservation = await reserving.reserveBatch({ batchId: input.batchId });
  } catch (err) {
    const cause = (err as { cause?: unknown }).cause;
    if (cause instanceof ApplicationFailure && typeof cause.type === 'string' && RESERVE_REFUSALS.includes(cause.type)) {
      reserveFailure = ApplicationFailure.create({ message: cause.message, type: cause.type, nonRetryable: true, details: cause.details ?? undefined });
    } else {
      // Out of quick tries (database trouble): the last attempt may still commit. abandonReserve
      // takes the batch row lock, so it sees that commit, or removes the staged batch for good
      // and a late attempt then finds nothing to reserve: the 503 the client gets stays true.
      reservation = (await CancellationScope.nonCancellable(() => acts.abandonReserve({ batchId: input.batchId }))) ?? undefined;
      if (!reservation) reserveFailure = ApplicationFailure.nonRetryable('the batch could not be reserved; nothing was reserved', PayoutFailureTypes.reservationUnavailable);
    }
  }
  if (!reservation) {
    setPhase('REJECTED');
    await condition(allHandlersFinished);
    return { batchId: input.batchId, status: 'REJECTED', releasedAmountCents: 0 };
  }
  setPhase('PROCESSING');

  try {
    await processing.run(() => runChunks(input, chunksTotal, (r) => {
      totals.chunksDone++;
      totals.paid += r.paid;
      totals.failed += r.failed;
    }));
  } catch (err) {
    if (!isCancellation(err)) throw err;
  }
  // A cancel from outside (Web UI, client) may surface as children that simply stopped early,
  // not as an error: the scope's state, not an exception, says whether we were cancelled.
  if (processing.consideredCancelled) cancelReason ??= 'cancelled by operator in Temporal';

  const finished = await CancellationScope.nonCancellable(() => acts.finishBatch({ batchId: input.batchId, cancelReason }));
  outcome = { batchId: input.batchId, ...finished };
  setPhase(finished.status);
  // After a cancel from outside the root scope is cancelled: wait for handlers outside it.
  await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
  return outcome;
}

/** Runs the chunks, a few at a time; waits for every started child even when one is cancelled. */
async function runChunks(input: PayoutBatchInput, chunksTotal: number, onChunk: (r: ChunkResult) => void): Promise<void> {
  let next = 0;
  const scope = CancellationScope.current();
  const lane = async () => {
    while (next < chunksTotal && !scope.consideredCancelled) {
      const index = next++;
      const fromRow = index * input.chunkSize;
      const result = await executeChild(payoutChunk, {
        workflowId: `${workflowInfo().workflowId}-chunk-${index}`,
        args: [{ batchId: input.batchId, fromRow, toRow: Math.min(fromRow + input.chunkSize, input.itemsCount) - 1, itemConcurrency: input.itemConcurrency }],
      });
      onChunk(result);
    }
  };
  const lanes = await Promise.allSettled(Array.from({ length: Math.max(1, Math.min(input.parallelChunks, chunksTotal)) }, lane));
  const failure = lanes.find((l): l is PromiseRejectedResult => l.status === 'rejected');
  if (failure) throw failure.reason;
}

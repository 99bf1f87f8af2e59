/**
 * PayoutBatch (workflow id `payout-batch-<id>`): reserve the batch's funding → pay items in
 * child workflows, one per row range (history stays small for 10,000+ items) → finish. The
 * reserve and each item's transfer are the one outbound-transfer path's
 * (workflows/transfers/outboundTransfer.ts states its money rules); a reserve given up removes
 * the staged batch, so a late attempt finds nothing to reserve.
 *
 * Cancel — by the cancel update (API) or by cancelling the run in the Temporal Web UI — takes
 * the same path: children stop starting items and wait for the transfers in flight, then
 * `finishBatch` (non-cancellable) marks every unsent item CANCELLED and releases its funding
 * once. Nothing is released twice and nothing paid is released. The API cancel records its
 * reason on the batch row first: finishBatch reads it there. A run cancelled from the Web UI
 * ends Cancelled after that compensation; an API cancel completes normally with its outcome.
 *
 * An operator acting on one chunk child cannot strand the batch's money either:
 * - a chunk cancelled on its own returns with unsent items: finishBatch cancels them;
 * - a chunk that fails or is terminated may leave a transfer in flight: the batch stops starting
 *   chunks, waits TRANSFER_GRACE, lets the provider's record settle every SENDING item
 *   (resolveItem), then finishes the same way.
 */
import {
  ApplicationFailure,
  CancellationScope,
  allHandlersFinished,
  condition,
  executeChild,
  CancelledFailure,
  isCancellation,
  patched,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { PayoutActivities } from '../../activities/payouts';
import { BusinessStatusKey } from '../../core/temporal/searchAttributes';
import {
  answerReservation,
  quickTries,
  reserveOrRefuse,
  settleAfterGrace,
  type Reservation,
} from '../transfers/outboundTransfer';
import { batchProgressQuery, cancelBatchUpdate, reserveBatchUpdate } from './definitions';
import { payoutChunk } from './payoutChunk';
import { resolveItems } from './resolveItems';
import {
  PayoutFailureTypes,
  type BatchOutcome,
  type BatchReservation,
  type ChunkResult,
  type PayoutBatchInput,
} from './types';

const acts = proxyActivities<PayoutActivities>({
  startToCloseTimeout: '60 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    nonRetryableErrorTypes: [
      PayoutFailureTypes.insufficientBalance,
      PayoutFailureTypes.batchNotFound,
      PayoutFailureTypes.refused,
    ],
  },
});

const RESERVE_REFUSALS: string[] = [
  PayoutFailureTypes.insufficientBalance,
  PayoutFailureTypes.batchNotFound,
  PayoutFailureTypes.refused,
];

const reserving = proxyActivities<PayoutActivities>(quickTries(RESERVE_REFUSALS));

// Listing the items left SENDING must eventually happen: retry until it does.
const resolving = proxyActivities<PayoutActivities>({
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '2 minutes' },
});

/** Since M6: the cancel update records its reason on the batch row before stopping anything. */
const CANCEL_INTENT_IN_DB = 'cancel-intent-in-db';
/** Since the one outbound-transfer choreography: the reserve and its update cannot be cancelled half-way. */
const OUTBOUND_TRANSFER_V1 = 'outbound-transfer-v1';
const CHUNK_STOPPED_REASON = 'a payout chunk failed or was stopped in Temporal before sending every item';

export async function payoutBatch(input: PayoutBatchInput): Promise<BatchOutcome> {
  const onePath = patched(OUTBOUND_TRANSFER_V1);
  let phase = 'RESERVING';
  let cancelReason: string | null = null;
  let outcome: BatchOutcome | undefined;
  const chunksTotal = Math.ceil(input.itemsCount / input.chunkSize);
  const totals = { chunksDone: 0, paid: 0, failed: 0 };
  const root = CancellationScope.current();
  const processing = new CancellationScope();

  const setPhase = (next: string) => {
    phase = next;
    upsertSearchAttributes([{ key: BusinessStatusKey, value: next }]);
  };

  setHandler(batchProgressQuery, () => ({ phase, itemsCount: input.itemsCount, chunksTotal, ...totals, cancelReason }));

  const answer = onePath ? answerReservation(reserveBatchUpdate) : answerAsBefore();

  setHandler(
    cancelBatchUpdate,
    async ({ reason }) => {
      cancelReason ??= reason;
      if (patched(CANCEL_INTENT_IN_DB))
        await CancellationScope.nonCancellable(() => acts.recordCancelIntent({ batchId: input.batchId, reason }));
      processing.cancel();
      await condition(() => outcome !== undefined);
      return outcome as BatchOutcome;
    },
    {
      validator: ({ reason }) => {
        if (phase !== 'PROCESSING')
          throw ApplicationFailure.nonRetryable(
            `batch is ${phase}; only PROCESSING batches can be cancelled`,
            PayoutFailureTypes.notCancellable,
          );
        if (typeof reason !== 'string' || reason.length > 255)
          throw new Error('reason must be a string of at most 255 characters');
      },
    },
  );

  setPhase('RESERVING');
  const reserved = onePath
    ? await reserveOrRefuse({
        reserve: () => reserving.reserveBatch({ batchId: input.batchId }),
        refusalTypes: RESERVE_REFUSALS,
        // abandonReserve takes the batch row lock: it sees a late commit, or removes the staged batch.
        abandon: () => acts.abandonReserve({ batchId: input.batchId }),
        unavailable: {
          message: 'the batch could not be reserved; nothing was reserved',
          type: PayoutFailureTypes.reservationUnavailable,
        },
      })
    : await reserveAsBefore(input);
  answer(reserved);
  if ('refusal' in reserved) {
    setPhase('REJECTED');
    await condition(allHandlersFinished);
    return { batchId: input.batchId, status: 'REJECTED', releasedAmountCents: 0 };
  }
  setPhase('PROCESSING');

  let chunkStopped = false;
  try {
    await processing.run(() =>
      runChunks(input, chunksTotal, (r) => {
        totals.chunksDone++;
        totals.paid += r.paid;
        totals.failed += r.failed;
      }),
    );
  } catch (err) {
    // Any chunk error but the cancel we asked for (a failure, a terminate, a cancel of the chunk
    // alone) may leave a transfer in flight: handled below, never left PROCESSING.
    chunkStopped = !(processing.consideredCancelled && isCancellation(err));
  }
  // A cancel from outside (Web UI, client) may surface as children that simply stopped early,
  // not as an error: the scope's state, not an exception, says whether we were cancelled.
  const cancelledFromOutside = root.consideredCancelled;
  if (processing.consideredCancelled) cancelReason ??= 'cancelled by operator in Temporal';

  const finished = await CancellationScope.nonCancellable(async () => {
    // An attempt of the stopped chunk may still be running, or its request still be processed
    // at the provider: after the grace period the provider's record decides each item.
    if (chunkStopped) await settleAfterGrace(() => settleSending(input));
    return acts.finishBatch({ batchId: input.batchId, cancelReason, unsentReason: CHUNK_STOPPED_REASON });
  });
  outcome = { batchId: input.batchId, ...finished };
  setPhase(finished.status);
  // After a cancel from outside the root scope is cancelled: wait for handlers outside it.
  await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
  // The operator cancelled the run: show it as Cancelled, now that the unsent money is back.
  if (cancelledFromOutside && finished.status === 'CANCELLED')
    throw new CancelledFailure('payout batch cancelled in Temporal; unsent items were released');
  return outcome;
}

/** Runs started before outbound-transfer-v1 (they replay this path): an update a cancel could fail. */
function answerAsBefore(): (reservation: Reservation<BatchReservation>) => void {
  let known: Reservation<BatchReservation> | undefined;
  setHandler(reserveBatchUpdate, async () => {
    await condition(() => known !== undefined);
    const answer = known as Reservation<BatchReservation>;
    if ('refusal' in answer) throw answer.refusal;
    return answer.reserved;
  });
  return (reservation) => {
    known = reservation;
  };
}

/** Runs started before outbound-transfer-v1: a reserve a cancel could interrupt (abandonReserve then decides). */
async function reserveAsBefore(input: PayoutBatchInput): Promise<Reservation<BatchReservation>> {
  try {
    return { reserved: await reserving.reserveBatch({ batchId: input.batchId }) };
  } catch (err) {
    const cause = (err as { cause?: unknown }).cause;
    if (cause instanceof ApplicationFailure && typeof cause.type === 'string' && RESERVE_REFUSALS.includes(cause.type))
      return {
        refusal: ApplicationFailure.create({
          message: cause.message,
          type: cause.type,
          nonRetryable: true,
          details: cause.details ?? undefined,
        }),
      };
    const late = await CancellationScope.nonCancellable(() => acts.abandonReserve({ batchId: input.batchId }));
    if (late) return { reserved: late };
    return {
      refusal: ApplicationFailure.nonRetryable(
        'the batch could not be reserved; nothing was reserved',
        PayoutFailureTypes.reservationUnavailable,
      ),
    };
  }
}

/** Settles every SENDING item by the provider's record, a few at a time. */
async function settleSending(input: PayoutBatchInput): Promise<void> {
  await resolveItems(await resolving.listSendingItemIds({ batchId: input.batchId }), input.itemConcurrency);
}

/** Runs the chunks, a few at a time; waits for every started child even when one is cancelled. */
async function runChunks(
  input: PayoutBatchInput,
  chunksTotal: number,
  onChunk: (r: ChunkResult) => void,
): Promise<void> {
  let next = 0;
  let failed = false;
  const scope = CancellationScope.current();
  const lane = async () => {
    // After one chunk failed, no new chunk starts: the batch finishes what was sent.
    while (next < chunksTotal && !scope.consideredCancelled && !failed) {
      const index = next++;
      const fromRow = index * input.chunkSize;
      const result = await executeChild(payoutChunk, {
        workflowId: `${workflowInfo().workflowId}-chunk-${index}`,
        args: [
          {
            batchId: input.batchId,
            fromRow,
            toRow: Math.min(fromRow + input.chunkSize, input.itemsCount) - 1,
            itemConcurrency: input.itemConcurrency,
            ...(input.sliceSize ? { sliceSize: input.sliceSize } : {}),
          },
        ],
      }).catch((err: unknown) => {
        failed = true;
        throw err;
      });
      onChunk(result);
    }
  };
  const lanes = await Promise.allSettled(
    Array.from({ length: Math.max(1, Math.min(input.parallelChunks, chunksTotal)) }, lane),
  );
  const failure = lanes.find((l): l is PromiseRejectedResult => l.status === 'rejected');
  if (failure) throw failure.reason;
}

/**
 * RefundLifecycle (workflow id `refund-<id>`): reserve the shares → send the devolução through
 * the one transfer path → SUCCEEDED (money out) or FAILED (shares released). All I/O is in
 * activities.
 *
 * Money rules kept here:
 * - The request update answers only once the reservation is committed (or refused: nothing is
 *   stored), so the API's answer and the ledger agree. A reservation we stop waiting for leaves
 *   a FAILED tombstone, so a late attempt cannot reserve behind the caller's back.
 * - After the reservation everything runs in a non-cancellable scope: money that may have been
 *   sent is settled by the provider's record, never released on a guess. A refused call the
 *   provider has no record of is released only after TRANSFER_GRACE and one more look.
 */
import {
  ApplicationFailure,
  CancellationScope,
  allHandlersFinished,
  condition,
  isCancellation,
  proxyActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { RefundActivities, RefundStepOutcome } from '../../activities/refunds/refunds';
import { TRANSFER_GRACE } from '../../core/transfers/failures';
import { BusinessStatusKey } from '../searchAttributes';
import { refundStatusQuery, requestRefundUpdate } from './definitions';
import {
  RefundFailureTypes,
  refundRefusalTypes,
  type RefundInput,
  type RefundOutcome,
  type RefundPhase,
  type ReservedRefund,
} from './types';

// Reserving is on the synchronous path of POST /charges/{id}/refund: a few quick retries.
const reserving = proxyActivities<RefundActivities>({
  startToCloseTimeout: '10 seconds',
  retry: {
    initialInterval: '500 milliseconds',
    backoffCoefficient: 2,
    maximumAttempts: 3,
    nonRetryableErrorTypes: [...refundRefusalTypes],
  },
});

// Sending and settling must eventually happen: transient provider errors are retried with backoff.
const sending = proxyActivities<RefundActivities>({
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '5 minutes',
    nonRetryableErrorTypes: ['TransferMismatch', 'RefundStateConflict'],
  },
});

/** Parked (the merchant frozen or deactivated after the reservation): look again after a minute, then less often, at most every 15 minutes. */
const PARK_FIRST_MS = 60_000;
const PARK_MAX_MS = 15 * 60_000;

/** Send, and when the provider's answer leaves the outcome unknown, wait the grace period and ask it. */
async function sendStep(refundId: string): Promise<RefundStepOutcome> {
  try {
    let outcome = await sending.sendRefund({ refundId });
    if (outcome === 'UNCONFIRMED') {
      await sleep(TRANSFER_GRACE);
      outcome = await sending.resolveRefund({ refundId });
    }
    return outcome;
  } catch (err) {
    // A transfer that is not ours (reference or amount differ): the refund stays PROCESSING
    // with its shares reserved, alerted in the worker log, until someone looks.
    if (err instanceof ApplicationFailure || (err as { cause?: unknown }).cause instanceof ApplicationFailure)
      return 'SKIPPED';
    throw err;
  }
}

export async function refundLifecycle(input: RefundInput): Promise<RefundOutcome> {
  let phase: RefundPhase = 'RESERVING';
  let reserved: ReservedRefund | undefined;
  let refusal: ApplicationFailure | undefined;
  const setPhase = (next: RefundPhase) => {
    phase = next;
    upsertSearchAttributes([{ key: BusinessStatusKey, value: next }]);
  };
  const finish = async (): Promise<RefundOutcome> => {
    await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
    return { refundId: input.refundId, status: phase };
  };

  setHandler(refundStatusQuery, () => phase);
  setHandler(requestRefundUpdate, () =>
    CancellationScope.nonCancellable(async () => {
      await condition(() => reserved !== undefined || refusal !== undefined);
      if (refusal) throw refusal;
      return reserved as ReservedRefund;
    }),
  );

  setPhase('RESERVING');
  const reservation = await CancellationScope.nonCancellable(async () => {
    try {
      return { reserved: await reserving.reserveRefund(input) };
    } catch (err) {
      const cause = err instanceof ApplicationFailure ? err : (err as { cause?: unknown }).cause;
      if (cause instanceof ApplicationFailure && refundRefusalTypes.includes(cause.type ?? ''))
        return { refusal: cause };
      // The reservation could not be confirmed: make a late one impossible (or find that it
      // committed after all, and go on with it), then say so.
      const late = await sending.abandonRefundReserve(input);
      if (late) return { reserved: late };
      return {
        refusal: ApplicationFailure.nonRetryable(
          'the refund could not be reserved; nothing was refunded, retry',
          RefundFailureTypes.reservationUnavailable,
        ),
      };
    }
  });
  if ('refusal' in reservation) {
    refusal = reservation.refusal;
    setPhase('REFUSED');
    return finish();
  }
  reserved = reservation.reserved;
  setPhase(reserved.status);
  if (reserved.status !== 'PROCESSING') return finish();

  // Each step is non-cancellable; only the wait of a parked refund is not: an operator's cancel
  // (Web UI) then releases the shares, after the grace period, by the provider's record.
  let final = await CancellationScope.nonCancellable(() => sendStep(input.refundId));
  let parkMs = PARK_FIRST_MS;
  while (final === 'PARKED') {
    if (parkMs === PARK_FIRST_MS) setPhase('PARKED');
    try {
      await sleep(parkMs);
    } catch (err) {
      if (!isCancellation(err)) throw err;
      final = await CancellationScope.nonCancellable(async () => {
        await sleep(TRANSFER_GRACE);
        return sending.resolveRefund({ refundId: input.refundId, cancelled: true });
      });
      break;
    }
    parkMs = Math.min(parkMs * 2, PARK_MAX_MS);
    final = await CancellationScope.nonCancellable(() => sendStep(input.refundId));
  }
  if (final === 'SUCCEEDED' || final === 'FAILED') setPhase(final);
  return finish();
}

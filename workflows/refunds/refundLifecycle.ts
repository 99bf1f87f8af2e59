/**
 * RefundLifecycle (workflow id `refund-<id>`): reserve the shares → send the devolução (or the
 * transfer to the payer's key) → SUCCEEDED (money out) or FAILED (shares released), on the one
 * outbound-transfer path (workflows/transfers/outboundTransfer.ts states its money rules). All
 * I/O is in activities. MED devoluções run as this workflow (a child of medInfraction).
 *
 * What a refund adds: a refund reserved before its merchant was frozen or deactivated is parked
 * (PARKED), not sent, and looked at again with backoff; only that wait can be cancelled, and an
 * operator's cancel then releases the shares after the grace period, by the provider's record.
 */
import {
  CancellationScope,
  allHandlersFinished,
  condition,
  isCancellation,
  proxyActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { RefundActivities } from '../../activities/refunds';
import { BusinessStatusKey } from '../../core/temporal/searchAttributes';
import {
  answerReservation,
  quickTries,
  reserveOrRefuse,
  sendAndSettle,
  settleAfterGrace,
} from '../transfers/outboundTransfer';
import { refundStatusQuery, requestRefundUpdate } from './definitions';
import {
  RefundFailureTypes,
  refundRefusalTypes,
  type RefundInput,
  type RefundOutcome,
  type RefundPhase,
} from './types';

const reserving = proxyActivities<RefundActivities>(quickTries(refundRefusalTypes));

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

export async function refundLifecycle(input: RefundInput): Promise<RefundOutcome> {
  const { refundId } = input;
  let phase: RefundPhase = 'RESERVING';
  const setPhase = (next: RefundPhase) => {
    phase = next;
    upsertSearchAttributes([{ key: BusinessStatusKey, value: next }]);
  };
  const finish = async (): Promise<RefundOutcome> => {
    await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
    return { refundId, status: phase };
  };

  setHandler(refundStatusQuery, () => phase);
  const answer = answerReservation(requestRefundUpdate);

  setPhase('RESERVING');
  const reservation = await reserveOrRefuse({
    reserve: () => reserving.reserveRefund(input),
    refusalTypes: refundRefusalTypes,
    // Make a late reservation impossible, or find that it committed after all and go on with it.
    abandon: () => sending.abandonRefundReserve(input),
    unavailable: {
      message: 'the refund could not be reserved; nothing was refunded, retry',
      type: RefundFailureTypes.reservationUnavailable,
    },
  });
  answer(reservation);
  if ('refusal' in reservation) {
    setPhase('REFUSED');
    return finish();
  }
  setPhase(reservation.reserved.status);
  if (reservation.reserved.status !== 'PROCESSING') return finish();

  const sendStep = () =>
    sendAndSettle({
      send: () => sending.sendRefund({ refundId }),
      resolve: () => sending.resolveRefund({ refundId }),
    });
  let final = await sendStep();
  let parkMs = PARK_FIRST_MS;
  while (final === 'PARKED') {
    if (parkMs === PARK_FIRST_MS) setPhase('PARKED');
    try {
      await sleep(parkMs);
    } catch (err) {
      if (!isCancellation(err)) throw err;
      final = await settleAfterGrace(() => sending.resolveRefund({ refundId, cancelled: true }));
      break;
    }
    parkMs = Math.min(parkMs * 2, PARK_MAX_MS);
    final = await sendStep();
  }
  if (final === 'SUCCEEDED' || final === 'FAILED') setPhase(final);
  return finish();
}

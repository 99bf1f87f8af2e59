/**
 * Withdrawal (workflow id `withdrawal-<id>`): reserve amount + fee → send the Pix transfer to
 * the merchant's own key → COMPLETED (money out, fee booked) or FAILED (reserve returned).
 * All I/O is in activities.
 *
 * Money rules kept here:
 * - The request update answers only once the reservation is committed, so the API's 201 and
 *   the ledger agree; a refused request (insufficient balance, frozen, no key) stores nothing.
 * - A cancel (Temporal Web UI or client) before the transfer is sent returns the reserve.
 * - Once the transfer may have been sent, nothing is released before the provider has told us
 *   what happened to it (looked up by our reference): money that was paid is never released.
 * - Every step after the reservation runs in a non-cancellable scope, so it completes even
 *   though the workflow itself is being cancelled.
 */
import {
  ActivityCancellationType,
  ApplicationFailure,
  CancellationScope,
  allHandlersFinished,
  condition,
  isCancellation,
  patched,
  proxyActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { WithdrawalActivities } from '../../activities/withdrawals/withdrawals';
import {
  CANCELLED_BEFORE_TRANSFER,
  NOT_PROCESSED,
  TRANSFER_GRACE,
  TRANSFER_NOT_ACCEPTED,
} from '../../core/transfers/failures';
import { BusinessStatusKey } from '../searchAttributes';
import { requestWithdrawalUpdate, withdrawalStatusQuery } from './definitions';
import {
  WithdrawalFailureTypes,
  withdrawalRefusalTypes,
  type ReservedWithdrawal,
  type TransferOutcome,
  type WithdrawalInput,
  type WithdrawalOutcome,
  type WithdrawalPhase,
} from './types';

/**
 * After a cancel interrupted the transfer step with no answer from the provider, an attempt of
 * ours may still be running or its request still be processed there: wait well beyond the
 * attempt timeout (30 s, and the provider client's own 5 s), then ask again.
 */
export const LATE_TRANSFER_GRACE = TRANSFER_GRACE;

/** Since the one transfer path: a refused call also waits the grace period before any release. */
const GRACE_BEFORE_ANY_RELEASE = 'grace-before-any-release';

// Reserving is on the synchronous path of POST /sellers/saques: a few quick retries.
const reserving = proxyActivities<WithdrawalActivities>({
  startToCloseTimeout: '10 seconds',
  retry: {
    initialInterval: '500 milliseconds',
    backoffCoefficient: 2,
    maximumAttempts: 3,
    nonRetryableErrorTypes: [...withdrawalRefusalTypes],
  },
});

// The transfer is retried with backoff while the provider is unreachable; a refusal is final.
// A cancel stops waiting at once (TRY_CANCEL: the activity does not heartbeat, so it could not
// acknowledge one); a late attempt cannot pay a released withdrawal, because the activity sends
// nothing unless the row is still PROCESSING, and LATE_TRANSFER_GRACE covers one in flight.
const transferring = proxyActivities<WithdrawalActivities>({
  startToCloseTimeout: '30 seconds',
  cancellationType: ActivityCancellationType.TRY_CANCEL,
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    nonRetryableErrorTypes: [WithdrawalFailureTypes.stateConflict],
  },
});

// Recording the outcome must eventually happen: retry until it does.
const settling = proxyActivities<WithdrawalActivities>({
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '5 minutes',
    nonRetryableErrorTypes: [WithdrawalFailureTypes.stateConflict],
  },
});

export async function withdrawalLifecycle(input: WithdrawalInput): Promise<WithdrawalOutcome> {
  const { withdrawalId } = input;
  let phase: WithdrawalPhase = 'RESERVING';
  let reserved: ReservedWithdrawal | undefined;
  let refusal: ApplicationFailure | undefined;
  const workflowScope = CancellationScope.current();

  const setPhase = (next: WithdrawalPhase) => {
    phase = next;
    upsertSearchAttributes([{ key: BusinessStatusKey, value: next }]);
  };
  // Waits that must survive a cancel of the workflow (it would otherwise fail them at once).
  const handlersFinished = () => CancellationScope.nonCancellable(() => condition(allHandlersFinished));
  const finish = async (): Promise<WithdrawalOutcome> => {
    await handlersFinished();
    return { withdrawalId, status: phase };
  };

  setHandler(withdrawalStatusQuery, () => phase);
  // The caller always learns the reservation, even when a cancel arrives meanwhile.
  setHandler(requestWithdrawalUpdate, () =>
    CancellationScope.nonCancellable(async () => {
      await condition(() => reserved !== undefined || refusal !== undefined);
      if (refusal) throw refusal;
      return reserved as ReservedWithdrawal;
    }),
  );

  setPhase('RESERVING');
  // Its DB transaction either committed or not: a cancel must not leave us guessing which.
  const reservation = await CancellationScope.nonCancellable(() => reserve(input));
  if ('refusal' in reservation) {
    refusal = reservation.refusal;
    setPhase('REFUSED');
    return finish();
  }
  reserved = reservation.reserved;
  setPhase(reserved.status);
  if (reserved.status !== 'PROCESSING') return finish();

  if (workflowScope.consideredCancelled) {
    // Nothing was sent yet: give the money back.
    await CancellationScope.nonCancellable(() =>
      settling.failWithdrawal({
        withdrawalId,
        status: 'CANCELLED',
        transfer: null,
        failure: CANCELLED_BEFORE_TRANSFER,
      }),
    );
    setPhase('CANCELLED');
    await handlersFinished();
    throw ApplicationFailure.nonRetryable(
      'withdrawal cancelled by operator before the transfer',
      WithdrawalFailureTypes.cancelled,
    );
  }

  let transfer: TransferOutcome | null = null;
  let cancelled = false;
  try {
    transfer = await transferring.sendWithdrawalTransfer({ withdrawalId });
  } catch (err) {
    if (failureType(err) === WithdrawalFailureTypes.stateConflict) throw err;
    // Refused, or cancelled (before or during an attempt): the outcome is looked up below.
    cancelled = isCancellation(err) || workflowScope.consideredCancelled;
  }

  const final = await CancellationScope.nonCancellable(async () => {
    // No answer (cancelled between attempts) or a refused call the provider has no record of:
    // the provider's record for our reference decides, never our guess — and only after the
    // grace period, since an attempt of ours may still be running or being processed there.
    if (!transfer) transfer = await settling.findWithdrawalTransfer({ withdrawalId });
    if (!transfer && (cancelled || patched(GRACE_BEFORE_ANY_RELEASE))) {
      await sleep(LATE_TRANSFER_GRACE);
      transfer = await settling.findWithdrawalTransfer({ withdrawalId });
    }
    if (transfer?.status === 'COMPLETED') {
      await settling.completeWithdrawal({ withdrawalId, transfer });
      return 'COMPLETED' as const;
    }
    if (transfer) {
      await settling.failWithdrawal({ withdrawalId, status: 'FAILED', transfer, failure: null });
      return 'FAILED' as const;
    }
    // The provider has no transfer for our reference: nothing was paid, the reserve goes back.
    const status = cancelled ? 'CANCELLED' : 'FAILED';
    await settling.failWithdrawal({
      withdrawalId,
      status,
      transfer: null,
      failure: cancelled ? CANCELLED_BEFORE_TRANSFER : TRANSFER_NOT_ACCEPTED,
    });
    return status;
  });
  setPhase(final);
  await handlersFinished();
  if (cancelled && final === 'CANCELLED') {
    throw ApplicationFailure.nonRetryable(
      'withdrawal cancelled by operator before the transfer',
      WithdrawalFailureTypes.cancelled,
    );
  }
  return { withdrawalId, status: final };
}

type Reservation = { reserved: ReservedWithdrawal } | { refusal: ApplicationFailure };

async function reserve(input: WithdrawalInput): Promise<Reservation> {
  try {
    return { reserved: await reserving.reserveWithdrawal(input) };
  } catch (err) {
    const cause = (err as { cause?: unknown }).cause;
    if (cause instanceof ApplicationFailure && cause.type && withdrawalRefusalTypes.includes(cause.type)) {
      return {
        refusal: ApplicationFailure.create({
          message: cause.message,
          type: cause.type,
          nonRetryable: true,
          details: cause.details ?? undefined,
        }),
      };
    }
    // Out of quick retries (database trouble). The last attempt may still have committed, so
    // settle that case for good (the withdrawal fails, the reserve goes back) before answering.
    // With no row yet, a terminal one is written so a late attempt cannot reserve.
    const abandoned = await settling.failWithdrawal({
      withdrawalId: input.withdrawalId,
      status: 'FAILED',
      transfer: null,
      failure: NOT_PROCESSED,
      tombstone: input,
    });
    if (abandoned) return { reserved: abandoned };
    return {
      refusal: ApplicationFailure.nonRetryable(
        'the withdrawal could not be reserved; nothing was debited',
        WithdrawalFailureTypes.reservationUnavailable,
      ),
    };
  }
}

function failureType(err: unknown): string | undefined {
  const cause = (err as { cause?: unknown }).cause;
  return cause instanceof ApplicationFailure ? (cause.type ?? undefined) : undefined;
}

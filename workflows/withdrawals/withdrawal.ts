/**
 * Withdrawal (workflow id `withdrawal-<id>`): reserve amount + fee → send the Pix transfer to
 * the merchant's own key → COMPLETED (money out, fee booked) or FAILED (reserve returned), on the
 * one outbound-transfer path (workflows/transfers/outboundTransfer.ts states its money rules).
 * All I/O is in activities.
 *
 * What a withdrawal adds:
 * - A cancel (Temporal Web UI or client) before the transfer is sent returns the reserve, and the
 *   run ends Cancelled (WithdrawalCancelled).
 * - A cancel while the send waits for the provider (an outage) stops waiting at once; after the
 *   grace period the provider's record decides: paid money is completed, never released; with no
 *   record the reserve goes back, CANCELLED.
 * - A reservation we stopped waiting for that committed after all is released (FAILED), not sent:
 *   the caller was told nothing was debited.
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
import type { WithdrawalActivities } from '../../activities/withdrawals';
import {
  CANCELLED_BEFORE_TRANSFER,
  NOT_PROCESSED,
  TRANSFER_GRACE,
  TRANSFER_NOT_ACCEPTED,
} from '../../core/transfers/failures';
import { BusinessStatusKey } from '../../core/temporal/searchAttributes';
import { answerReservation, quickTries, reserveOrRefuse, sendAndSettle } from '../transfers/outboundTransfer';
import { requestWithdrawalUpdate, withdrawalStatusQuery } from './definitions';
import {
  WithdrawalFailureTypes,
  withdrawalRefusalTypes,
  type TransferOutcome,
  type WithdrawalInput,
  type WithdrawalOutcome,
  type WithdrawalPhase,
} from './types';

/** Since the one outbound-transfer choreography: send + settle in one activity, then grace + resolve. */
const OUTBOUND_TRANSFER_V1 = 'outbound-transfer-v1';

/** Before it: a refused call also waits the grace period before any release. */
const GRACE_BEFORE_ANY_RELEASE = 'grace-before-any-release';

const reserving = proxyActivities<WithdrawalActivities>(quickTries(withdrawalRefusalTypes));

// The transfer is retried with backoff while the provider is unreachable; a refusal is final.
// A cancel stops waiting at once (TRY_CANCEL: the activity does not heartbeat, so it could not
// acknowledge one); a late attempt cannot pay a released withdrawal, because the activity sends
// nothing unless the row is still PROCESSING, and TRANSFER_GRACE covers one in flight.
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
  const cancelled = async (): Promise<never> => {
    await handlersFinished();
    throw ApplicationFailure.nonRetryable(
      'withdrawal cancelled by operator before the transfer',
      WithdrawalFailureTypes.cancelled,
    );
  };

  setHandler(withdrawalStatusQuery, () => phase);
  const answer = answerReservation(requestWithdrawalUpdate);

  setPhase('RESERVING');
  const reservation = await reserveOrRefuse({
    reserve: () => reserving.reserveWithdrawal(input),
    refusalTypes: withdrawalRefusalTypes,
    // Out of quick retries (database trouble). The last attempt may still have committed, so
    // settle that case for good (the withdrawal fails, the reserve goes back) before answering.
    // With no row yet, a terminal one is written so a late attempt cannot reserve.
    abandon: () =>
      settling.failWithdrawal({
        withdrawalId,
        status: 'FAILED',
        transfer: null,
        failure: NOT_PROCESSED,
        tombstone: input,
      }),
    unavailable: {
      message: 'the withdrawal could not be reserved; nothing was debited',
      type: WithdrawalFailureTypes.reservationUnavailable,
    },
  });
  answer(reservation);
  if ('refusal' in reservation) {
    setPhase('REFUSED');
    return finish();
  }
  const reserved = reservation.reserved;
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
    return cancelled();
  }

  if (!patched(OUTBOUND_TRANSFER_V1)) {
    const final = await sendAsBefore(withdrawalId, workflowScope);
    setPhase(final.status);
    if (final.cancelled && final.status === 'CANCELLED') return cancelled();
    await handlersFinished();
    return { withdrawalId, status: final.status };
  }

  const final = await sendAndSettle({
    send: () => transferring.sendWithdrawal({ withdrawalId }),
    resolve: ({ cancelled }) => settling.resolveWithdrawal({ withdrawalId, cancelled }),
    cancellableSend: true,
  });
  // SKIPPED: the provider's transfer is not ours; the withdrawal stays PROCESSING, reserved, alerted.
  if (final !== 'SKIPPED') setPhase(final);
  if (final === 'CANCELLED') return cancelled();
  return finish();
}

/**
 * Runs started before outbound-transfer-v1 (they replay this path): the send returns the
 * provider's answer, and the workflow looks it up and completes or fails it in activities of
 * their own.
 */
async function sendAsBefore(
  withdrawalId: string,
  workflowScope: CancellationScope,
): Promise<{ status: 'COMPLETED' | 'FAILED' | 'CANCELLED'; cancelled: boolean }> {
  let transfer: TransferOutcome | null = null;
  let cancelled = false;
  try {
    transfer = await transferring.sendWithdrawalTransfer({ withdrawalId });
  } catch (err) {
    if (failureType(err) === WithdrawalFailureTypes.stateConflict) throw err;
    // Refused, or cancelled (before or during an attempt): the outcome is looked up below.
    cancelled = isCancellation(err) || workflowScope.consideredCancelled;
  }

  const status = await CancellationScope.nonCancellable(async () => {
    if (!transfer) transfer = await settling.findWithdrawalTransfer({ withdrawalId });
    if (!transfer && (cancelled || patched(GRACE_BEFORE_ANY_RELEASE))) {
      await sleep(TRANSFER_GRACE);
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
    const released = cancelled ? 'CANCELLED' : 'FAILED';
    await settling.failWithdrawal({
      withdrawalId,
      status: released,
      transfer: null,
      failure: cancelled ? CANCELLED_BEFORE_TRANSFER : TRANSFER_NOT_ACCEPTED,
    });
    return released;
  });
  return { status, cancelled };
}

function failureType(err: unknown): string | undefined {
  const cause = (err as { cause?: unknown }).cause;
  return cause instanceof ApplicationFailure ? (cause.type ?? undefined) : undefined;
}

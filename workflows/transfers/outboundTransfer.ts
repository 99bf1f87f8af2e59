/**
 * The workflow half of the one outbound-transfer path, written once for withdrawals (and the
 * scheduled settlements that run as withdrawals), refunds (and the MED devoluções that run as
 * refunds) and payouts; activities/transfers/transferSteps.ts is the activity half.
 *
 *   reserveOrRefuse   reserve, with a few quick tries (the request waits on it)
 *                     ├ refused: the refusal is the answer; nothing was stored
 *                     └ out of tries: the domain's abandon step leaves a tombstone
 *   answerReservation the request's update: answers once reserved, or throws the refusal
 *   sendAndSettle     send (business id as idempotency key; a known answer settles or releases)
 *                     └ no record at the provider: TRANSFER_GRACE, look up again → settle or release
 *
 * Money rules kept here (each workflow's header says only what it adds):
 * - The request's update answers only once the reservation is committed or refused, so the API's
 *   answer and the ledger agree, even when a cancel arrives meanwhile. A refusal stores nothing.
 * - A reservation we stop waiting for (out of quick tries: database trouble) is made final before
 *   answering: the abandon step writes a tombstone, so a late attempt cannot reserve behind the
 *   caller's back, or finds the reservation that committed after all (the run goes on with it;
 *   a withdrawal's releases it).
 * - The reserve, and everything once a transfer may have been sent, runs in a non-cancellable
 *   scope: a DB transaction either committed or not, and money that may have left is settled by
 *   the provider's record, never released on a guess.
 * - Nothing is released for a transfer the provider has no record of before TRANSFER_GRACE has
 *   passed and the provider was asked again (an attempt of ours may still be running, or its
 *   request still be processed there).
 * - A transfer that is not ours (reference or amount differ), or a row that moved the other way,
 *   is a final failure: the transfer is SKIPPED and its money stays reserved, alerted, until
 *   someone looks.
 * - A cancel stops a wait only where the domain allows it (a withdrawal's send, a parked refund,
 *   a parked payout chunk); the money is then decided the same way: grace, then the record.
 *
 * Pure workflow code: only @temporalio/workflow values and activity types are imported (and the
 * grace period, a constant of core/transfers/failures.ts that the repair reads too).
 */
import {
  ApplicationFailure,
  CancellationScope,
  condition,
  isCancellation,
  setHandler,
  sleep,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { UpdateDefinition } from '@temporalio/common';
import { TRANSFER_GRACE } from '../../core/transfers/failures';

/** A reserve on the synchronous path of a request: a few quick tries, so the request never hangs. */
export function quickTries(refusalTypes: readonly string[]): ActivityOptions {
  return {
    startToCloseTimeout: '10 seconds',
    retry: {
      initialInterval: '500 milliseconds',
      backoffCoefficient: 2,
      maximumAttempts: 3,
      nonRetryableErrorTypes: [...refusalTypes],
    },
  };
}

export type Reservation<R> = { reserved: R } | { refusal: ApplicationFailure };

/**
 * Reserves, or answers why not. `reserve` runs with quickTries; a refusal of `refusalTypes` is
 * answered as it is; out of tries, `abandon` makes the give-up final (a tombstone) and answers the
 * reservation that committed after all, if one did; with none, `unavailable` is the refusal.
 */
export function reserveOrRefuse<R>(steps: {
  reserve: () => Promise<R>;
  refusalTypes: readonly string[];
  abandon: () => Promise<R | null>;
  unavailable: { message: string; type: string };
}): Promise<Reservation<R>> {
  // Its DB transaction either committed or not: a cancel must not leave us guessing which.
  return CancellationScope.nonCancellable(async () => {
    try {
      return { reserved: await steps.reserve() };
    } catch (err) {
      const refusal = refusalOf(err, steps.refusalTypes);
      if (refusal) return { refusal };
      const late = await steps.abandon();
      if (late) return { reserved: late };
      return { refusal: ApplicationFailure.nonRetryable(steps.unavailable.message, steps.unavailable.type) };
    }
  });
}

/**
 * Sets the request's update handler (Update-With-Start target): it answers the reservation once
 * known, or throws the refusal. Call it before the first await; call the function it returns with
 * reserveOrRefuse's answer.
 */
export function answerReservation<R>(update: UpdateDefinition<R, []>): (reservation: Reservation<R>) => void {
  let known: Reservation<R> | undefined;
  // The caller always learns the reservation, even when a cancel arrives meanwhile.
  setHandler(update, () =>
    CancellationScope.nonCancellable(async () => {
      await condition(() => known !== undefined);
      const answer = known as Reservation<R>;
      if ('refusal' in answer) throw answer.refusal;
      return answer.reserved;
    }),
  );
  return (reservation) => {
    known = reservation;
  };
}

/** The provider has no record of the transfer (yet): wait TRANSFER_GRACE, then resolve. */
export const UNCONFIRMED = 'UNCONFIRMED';
type Unconfirmed = typeof UNCONFIRMED;

/** The domain's outcomes of a send or a resolve (its final statuses, and UNCONFIRMED). */
export interface TransferSteps<O extends string> {
  /** Sends (business id as key); settles or releases when the provider's answer is known; UNCONFIRMED otherwise. */
  send: () => Promise<O>;
  /** After the grace period: the provider's record settles or releases; `cancelled` when an operator stopped the send. */
  resolve: (why: { cancelled: boolean }) => Promise<O>;
  /**
   * A cancel of the workflow stops waiting for the send (withdrawals: the activity is proxied
   * with TRY_CANCEL); the money is then resolved after the grace period, `cancelled`. Otherwise
   * the send runs to its end like everything else here.
   */
  cancellableSend?: boolean;
}

/**
 * Send, and when the provider has no record: TRANSFER_GRACE, look up, settle or release. The
 * domain's outcome; SKIPPED on a final failure (money left reserved, alerted).
 */
export async function sendAndSettle<O extends string>(
  steps: TransferSteps<O>,
): Promise<Exclude<O, Unconfirmed> | 'SKIPPED'> {
  if (!steps.cancellableSend) {
    return CancellationScope.nonCancellable(() =>
      skipOnFinalFailure(async () => {
        const sent = await steps.send();
        return sent === UNCONFIRMED
          ? settleAfterGrace(() => steps.resolve({ cancelled: false }))
          : (sent as Exclude<O, Unconfirmed>);
      }),
    );
  }
  let sent: O | Unconfirmed;
  let cancelled = false;
  try {
    sent = await steps.send();
  } catch (err) {
    if (!isCancellation(err)) return rethrowUnlessFinal(err);
    // Cancelled before or during an attempt: the provider's record decides, after the grace period.
    cancelled = true;
    sent = UNCONFIRMED;
  }
  if (sent !== UNCONFIRMED) return sent as Exclude<O, Unconfirmed>;
  return skipOnFinalFailure(() => settleAfterGrace(() => steps.resolve({ cancelled })));
}

/**
 * Waits TRANSFER_GRACE, then lets the provider's record settle or release (`resolve`), whatever
 * cancels meanwhile. A resolve still UNCONFIRMED is SKIPPED.
 */
export function settleAfterGrace<T>(resolve: () => Promise<T>): Promise<Exclude<T, Unconfirmed> | 'SKIPPED'> {
  return CancellationScope.nonCancellable(async () => {
    await sleep(TRANSFER_GRACE);
    const resolved = await resolve();
    return resolved === UNCONFIRMED ? 'SKIPPED' : (resolved as Exclude<T, Unconfirmed>);
  });
}

/** A final domain failure of an activity (the provider's transfer is not ours, a state conflict), not an outage. */
export function isFinalFailure(err: unknown): boolean {
  return err instanceof ApplicationFailure || (err as { cause?: unknown }).cause instanceof ApplicationFailure;
}

async function skipOnFinalFailure<O>(step: () => Promise<O>): Promise<O | 'SKIPPED'> {
  try {
    return await step();
  } catch (err) {
    return rethrowUnlessFinal(err);
  }
}

function rethrowUnlessFinal(err: unknown): 'SKIPPED' {
  if (isFinalFailure(err)) return 'SKIPPED';
  throw err;
}

/** The refusal in an activity's failure, as a fresh non-retryable failure; null when it is not one of `types`. */
function refusalOf(err: unknown, types: readonly string[]): ApplicationFailure | null {
  const cause = err instanceof ApplicationFailure ? err : (err as { cause?: unknown }).cause;
  if (!(cause instanceof ApplicationFailure) || !cause.type || !types.includes(cause.type)) return null;
  return ApplicationFailure.create({
    message: cause.message,
    type: cause.type,
    nonRetryable: true,
    details: cause.details ?? undefined,
  });
}

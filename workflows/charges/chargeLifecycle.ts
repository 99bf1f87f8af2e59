/**
 * ChargeLifecycle (workflow id `charge-<id>`): issue the Pix charge (or, with method BOLETO, the
 * hybrid boleto) at the provider → wait for the payment, the expiry timer (a boleto's due time
 * plus its grace days) or a cancel → settle or close. All I/O is in activities.
 *
 * Money rules kept here:
 * - A payment confirmation is a claim: settlement asks the provider and credits only what its
 *   record says is PAID (see settleChargePaid). An unbacked claim changes nothing; the run
 *   keeps waiting until expiry.
 * - Expiry and cancel first close the charge at the provider. If the provider answers that it
 *   was already paid (a payment raced the timer), the charge settles as PAID; a confirmation
 *   that arrives during the close or the finalize is settled late: money that arrived is never
 *   dropped. A provider with no record of the charge gets it expired, not a failed run.
 * - Giving up on issuing leaves a tombstone, so a late record attempt cannot create a charge
 *   the client was told does not exist.
 * - Compensation after a cancel (route or Temporal Web UI) runs in a non-cancellable scope, so
 *   it completes even though the workflow itself is being cancelled.
 */
import {
  type ActivityOptions,
  type LocalActivityOptions,
  ApplicationFailure,
  CancellationScope,
  allHandlersFinished,
  condition,
  isCancellation,
  log,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { ChargeActivities } from '../../activities/charges';
import { BusinessStatusKey } from '../../core/temporal/searchAttributes';
import { cancelChargeUpdate, chargeStatusQuery, issueChargeUpdate, paymentConfirmedSignal } from './definitions';
import {
  ChargeFailureTypes,
  closesAt,
  type ChargeLifecycleInput,
  type ChargeOutcome,
  type ChargePhase,
  type IssuedCharge,
} from './types';
import type { PaymentConfirmation } from '../../core/charges/paymentConfirmation';

// Issuing is on the synchronous path of POST /sellers/pix: a few quick retries, then a clear 502.
const issuingOptions: LocalActivityOptions & ActivityOptions = {
  startToCloseTimeout: '10 seconds',
  retry: {
    initialInterval: '500 milliseconds',
    backoffCoefficient: 2,
    maximumAttempts: 3,
    nonRetryableErrorTypes: [ChargeFailureTypes.providerRejected, ChargeFailureTypes.pixNotIssued],
  },
};
/** Runs recorded before 'charge-issue-local' issued with regular activities, and replay so. */
const issuingRemotely = proxyActivities<ChargeActivities>(issuingOptions);
/**
 * Issue and record run as local activities, inside the workflow task that the Update-With-Start
 * delivered (the early-return pattern): the update's answer needs no activity task to go through
 * the server and back twice. Both steps are idempotent (the charge id is the provider's key and
 * the row's key), so a worker that dies mid-task only makes the next worker run them again.
 */
const issuingLocally = proxyLocalActivities<ChargeActivities>(issuingOptions);
/**
 * A Pix charge is issued and recorded by one local activity (issueAndRecordPix) since
 * 'charge-issue-one-step': one activation and one activity dispatch fewer per create. Its attempt
 * bound is the two steps' together; the retry policy is theirs (an attempt that failed recording
 * asks the provider again, which answers the same charge: both halves are idempotent).
 */
const issuingInOneStep = proxyLocalActivities<ChargeActivities>({
  ...issuingOptions,
  startToCloseTimeout: '20 seconds',
});

// Settlement must eventually happen: retry until it does (DB and provider outages are waited out).
const settlingOptions: ActivityOptions & LocalActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes' },
};
const settling = proxyActivities<ChargeActivities>(settlingOptions);
/**
 * A payment is settled by a local activity, in the workflow task that brought the confirmation:
 * the charge.paid event commits without an activity task going through the server and back
 * (webhook latency). Settlement is keyed (ledger movement, row lock), so a rerun after
 * a crash credits nothing twice; past a minute of retries the SDK waits on a durable timer.
 * Runs that settled before 'charge-settle-local' replay with the regular activity.
 */
const settlingLocally = proxyLocalActivities<ChargeActivities>(settlingOptions);

export async function chargeLifecycle(input: ChargeLifecycleInput): Promise<ChargeOutcome> {
  let phase: ChargePhase = 'ISSUING';
  let issued: IssuedCharge | undefined;
  let issueFailure: ApplicationFailure | undefined;
  let payment: PaymentConfirmation | undefined;
  let cancelReason: string | undefined;

  const setPhase = (next: ChargePhase) => {
    phase = next;
    upsertSearchAttributes([{ key: BusinessStatusKey, value: next }]);
  };

  setHandler(chargeStatusQuery, () => phase);

  setHandler(issueChargeUpdate, async () => {
    await condition(() => issued !== undefined || issueFailure !== undefined);
    if (issueFailure) throw issueFailure;
    return issued as IssuedCharge;
  });

  setHandler(paymentConfirmedSignal, (confirmation) => {
    // The first confirmation wins; duplicates of a callback change nothing.
    if (!payment) payment = confirmation;
  });

  setHandler(
    cancelChargeUpdate,
    async ({ reason }) => {
      cancelReason = reason;
      await condition(() => phase !== 'PENDING');
      return phase;
    },
    {
      validator: ({ reason }) => {
        if (phase !== 'PENDING') {
          throw ApplicationFailure.nonRetryable(
            `charge is ${phase}, only PENDING charges can be cancelled`,
            ChargeFailureTypes.notCancellable,
          );
        }
        if (typeof reason !== 'string' || reason.length > 255)
          throw new Error('reason must be a string of at most 255 characters');
      },
    },
  );

  // Boletos (application API) take their own provider steps; runs without `method` are Pix, so
  // every history recorded before boletos replays the same commands.
  const isBoleto = input.method === 'BOLETO';

  // Pix runs since 'charge-issue-one-step' issue and record in one local activity. That patch
  // implies 'charge-issue-local', whose marker (and its TemporalChangeVersion upsert) they no
  // longer write: runs recorded before it replay 'charge-issue-local' (two local activities) or
  // neither (regular activities), as patched() is only true on replay for a marker in the history.
  const oneStep = !isBoleto && patched('charge-issue-one-step');
  // The start already set BusinessStatus ISSUING (core/temporal/updateWithStart.ts); runs before
  // 'charge-issue-local' upserted it once more, and replay that command.
  const local = oneStep || patched('charge-issue-local');
  if (local) phase = 'ISSUING';
  else setPhase('ISSUING');
  const issuing = local ? issuingLocally : issuingRemotely;
  try {
    if (isBoleto) {
      const providerBoleto = await issuing.issueBoletoAtProvider(input);
      issued = await issuing.recordIssuedBoleto({ input, providerBoleto });
    } else if (oneStep) {
      issued = await issuingInOneStep.issueAndRecordPix(input);
    } else {
      const providerCharge = await issuing.issuePixAtProvider(input);
      issued = await issuing.recordIssuedCharge({ input, providerCharge });
    }
  } catch (err) {
    // Make the give-up durable: a record attempt still running on some worker can no longer
    // commit. If one already did, the charge exists, and the client is told so. (patched: runs
    // recorded before this step replay without it.)
    const committed = patched('charge-issue-tombstone')
      ? await CancellationScope.nonCancellable(() =>
          settling.abandonChargeIssue({
            chargeId: input.chargeId,
            merchantId: input.merchantId,
            expiresAt: input.expiresAt,
            reason: failureMessage(err),
          }),
        )
      : null;
    if (committed) {
      issued = committed;
    } else {
      issueFailure = toIssueFailure(err);
      setPhase('FAILED');
      // The provider may have created the charge before failing us: close it so nobody pays a
      // charge the gateway never recorded.
      await CancellationScope.nonCancellable(() =>
        isBoleto
          ? settling.closeOrphanProviderBoleto({ reference: input.chargeId })
          : settling.closeOrphanProviderCharge({ reference: input.chargeId }),
      );
      await condition(allHandlersFinished);
      return { chargeId: input.chargeId, status: phase };
    }
  }
  setPhase('PENDING');

  /**
   * Settlement asks the provider; true once the charge is PAID (now or by a concurrent path).
   * Only an explicit refusal means "not paid": results recorded by older runs ({applied}) carry
   * no outcome and were settlements, so their histories replay the same way.
   */
  const settle = async (claim: PaymentConfirmation): Promise<boolean> => {
    const settler = patched('charge-settle-local') ? settlingLocally : settling;
    const { outcome } = await settler.settleChargePaid({ chargeId: input.chargeId, payment: claim });
    return outcome !== 'NOT_CONFIRMED' && outcome !== 'MISMATCH';
  };

  let paid = false;
  let cancelledFromOutside: unknown;
  try {
    for (;;) {
      // A boleto stays payable through its grace days after the due date.
      const msUntilExpiry = closesAt(input) - Date.now();
      if (msUntilExpiry <= 0) break;
      await condition(() => payment !== undefined || cancelReason !== undefined, msUntilExpiry);
      const claim = payment;
      if (cancelReason !== undefined || claim === undefined) break;
      paid = await CancellationScope.nonCancellable(() => settle(claim));
      if (paid) break;
      // The provider did not back the claim (forged, or a paid amount that differs): keep
      // waiting for a real payment until expiry.
      payment = undefined;
    }
  } catch (err) {
    if (!isCancellation(err)) throw err;
    // Cancelled from the Temporal Web UI or the client: same compensation as the cancel update.
    cancelledFromOutside = err;
    cancelReason = cancelReason ?? 'workflow cancelled by operator';
  }

  await CancellationScope.nonCancellable(async () => {
    if (paid) return setPhase('PAID');
    const closing = cancelReason !== undefined ? 'CANCELLED' : 'EXPIRED';
    // A claim that came together with the cancel is looked at first.
    const pending = payment;
    payment = undefined;
    if (pending && (await settle(pending))) return setPhase('PAID');
    const providerChargeId = (issued as IssuedCharge).providerChargeId;
    const closed = isBoleto
      ? await settling.closeProviderBoleto({ providerBoletoId: providerChargeId, chargeId: input.chargeId })
      : await settling.closeProviderCharge({ providerChargeId, reason: closing, chargeId: input.chargeId });
    if (closed.payment && (await settle(closed.payment))) return setPhase('PAID');
    await settling.finalizeUnpaidCharge({ chargeId: input.chargeId, status: closing, reason: cancelReason ?? null });
    setPhase(closing);
    if (closed.status === 'NO_RECORD') {
      log.warn('the provider has no record of this charge; closed it without the provider', {
        chargeId: input.chargeId,
        providerChargeId,
        status: closing,
      });
      upsertSearchAttributes([{ key: BusinessStatusKey, value: `${closing}_NO_PROVIDER_RECORD` }]);
    }
    // A confirmation that arrived while the provider was closing, or while we finalized, is
    // settled late (paidAfterExpiry), never dropped.
    const late = payment as PaymentConfirmation | undefined;
    if (late && (await settle(late))) setPhase('PAID');
  });

  // The root scope may be cancelled: wait for handlers outside it, then report the run as
  // cancelled (as the operator asked) unless a payment won the race.
  await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
  if (cancelledFromOutside && (phase as ChargePhase) === 'CANCELLED') throw cancelledFromOutside;
  return { chargeId: input.chargeId, status: phase };
}

/**
 * What an issue step failed with: a regular activity's failure arrives wrapped (ActivityFailure,
 * the reason in `cause`); a local activity's arrives as the activity threw it.
 */
function issueFailureReason(err: unknown): { message?: unknown } | undefined {
  return err instanceof ApplicationFailure ? err : (err as { cause?: { message?: unknown } }).cause;
}

function failureMessage(err: unknown): string {
  return String(issueFailureReason(err)?.message ?? (err as { message?: unknown }).message ?? 'issue failed');
}

function toIssueFailure(err: unknown): ApplicationFailure {
  const cause = issueFailureReason(err);
  if (
    cause instanceof ApplicationFailure &&
    cause.type &&
    Object.values<string>(ChargeFailureTypes).includes(cause.type)
  ) {
    return ApplicationFailure.nonRetryable(cause.message, cause.type);
  }
  return ApplicationFailure.nonRetryable('the Pix provider is unavailable', ChargeFailureTypes.providerUnavailable);
}

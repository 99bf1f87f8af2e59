/**
 * ChargeLifecycle (workflow id `charge-<id>`): issue the Pix charge at the provider → wait for
 * the payment, the expiry timer or a cancel → settle or close. All I/O is in activities.
 *
 * Money rules kept here:
 * - Expiry and cancel first close the charge at the provider. If the provider answers that it
 *   was already paid (a payment raced the timer), the charge settles as PAID: money that
 *   arrived is never dropped.
 * - Compensation after a cancel (route or Temporal Web UI) runs in a non-cancellable scope, so
 *   it completes even though the workflow itself is being cancelled.
 */
import {
  ApplicationFailure,
  CancellationScope,
  allHandlersFinished,
  condition,
  isCancellation,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { ChargeActivities } from '../../activities/charges';
import { BusinessStatusKey } from '../searchAttributes';
import { cancelChargeUpdate, chargeStatusQuery, issuePixUpdate, paymentConfirmedSignal } from './definitions';
import {
  ChargeFailureTypes,
  type ChargeLifecycleInput,
  type ChargeOutcome,
  type ChargePhase,
  type IssuedCharge,
  type PaymentConfirmation,
} from './types';

// Issuing is on the synchronous path of POST /sellers/pix: a few quick retries, then a clear 502.
const issuing = proxyActivities<ChargeActivities>({
  startToCloseTimeout: '10 seconds',
  retry: {
    initialInterval: '500 milliseconds',
    backoffCoefficient: 2,
    maximumAttempts: 3,
    nonRetryableErrorTypes: [ChargeFailureTypes.providerRejected, ChargeFailureTypes.pixNotIssued],
  },
});

// Settlement must eventually happen: retry until it does (DB and provider outages are waited out).
const settling = proxyActivities<ChargeActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes' },
});

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

  setHandler(issuePixUpdate, async () => {
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
          throw ApplicationFailure.nonRetryable(`charge is ${phase}, only PENDING charges can be cancelled`, ChargeFailureTypes.notCancellable);
        }
        if (typeof reason !== 'string' || reason.length > 255) throw new Error('reason must be a string of at most 255 characters');
      },
    },
  );

  setPhase('ISSUING');
  try {
    const providerCharge = await issuing.issuePixAtProvider(input);
    issued = await issuing.recordIssuedCharge({ input, providerCharge });
    setPhase('PENDING');
  } catch (err) {
    issueFailure = toIssueFailure(err);
    setPhase('FAILED');
    // The provider may have created the charge before failing us: close it so nobody pays a
    // charge the gateway never recorded.
    await CancellationScope.nonCancellable(() => settling.closeOrphanProviderCharge({ reference: input.chargeId }));
    await condition(allHandlersFinished);
    return { chargeId: input.chargeId, status: phase };
  }

  let cancelledFromOutside: unknown;
  try {
    const msUntilExpiry = Math.max(0, Date.parse(input.expiresAt) - Date.now());
    await condition(() => payment !== undefined || cancelReason !== undefined, msUntilExpiry);
  } catch (err) {
    if (!isCancellation(err)) throw err;
    // Cancelled from the Temporal Web UI or the client: same compensation as the cancel update.
    cancelledFromOutside = err;
    cancelReason = cancelReason ?? 'workflow cancelled by operator';
  }

  await CancellationScope.nonCancellable(async () => {
    const providerChargeId = (issued as IssuedCharge).providerChargeId;
    if (!payment) {
      const closing = cancelReason !== undefined ? 'CANCELLED' : 'EXPIRED';
      const closed = await settling.closeProviderCharge({ providerChargeId, reason: closing });
      if (closed.payment) {
        payment = closed.payment;
      } else {
        await settling.finalizeUnpaidCharge({ chargeId: input.chargeId, status: closing, reason: cancelReason ?? null });
        setPhase(closing);
        return;
      }
    }
    await settling.settleChargePaid({ chargeId: input.chargeId, payment: payment as PaymentConfirmation });
    setPhase('PAID');
  });

  // The root scope may be cancelled: wait for handlers outside it, then report the run as
  // cancelled (as the operator asked) unless a payment won the race.
  await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
  if (cancelledFromOutside && (phase as ChargePhase) === 'CANCELLED') throw cancelledFromOutside;
  return { chargeId: input.chargeId, status: phase };
}

function toIssueFailure(err: unknown): ApplicationFailure {
  const cause = (err as { cause?: unknown }).cause;
  if (cause instanceof ApplicationFailure && cause.type && Object.values<string>(ChargeFailureTypes).includes(cause.type)) {
    return ApplicationFailure.nonRetryable(cause.message, cause.type);
  }
  return ApplicationFailure.nonRetryable('the Pix provider is unavailable', ChargeFailureTypes.providerUnavailable);
}

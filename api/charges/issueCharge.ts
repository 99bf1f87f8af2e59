/**
 * The one way the API issues a charge, whichever API asked (seller routes, application API):
 * a ChargeLifecycle workflow started with Update-With-Start, whose update answers once the
 * payment data is issued and the charge row committed, so the answer and the durable state
 * agree. The API never talks to the provider itself.
 */
import type { Client } from '@temporalio/client';
import { applicationFailureOf, isTemporalUnanswered, temporalErrorToApi } from '../temporal/temporalErrors';
import { updateWithStartOrJoin } from '../temporal/updateWithStart';
import { issueChargeUpdate, chargeLifecycleWorkflow, chargeWorkflowId } from '../../workflows/charges/definitions';
import { ChargeFailureTypes, type ChargeLifecycleInput } from '../../workflows/charges/types';
import { chargeStore, type Charge } from '../../db/charges';
import type { Merchant } from '../../db/identity';
import { computeFee } from '../../core/money';
import { ApiError, errors } from '../errors/apiError';

export interface IssueDeps {
  temporal: Client;
  taskQueue: string;
}

/** Lifetime bounds of a charge: at least a minute, at most this many days. */
export const MAX_CHARGE_TTL_DAYS = 30;

/** The expiry a create request asks for (or the default), checked against the bounds. */
export function chargeExpiry(requested: string | undefined, now: Date, defaultTtlSeconds: number): Date {
  const expiresAt = requested ? new Date(requested) : new Date(now.getTime() + defaultTtlSeconds * 1000);
  if (
    expiresAt.getTime() < now.getTime() + 60_000 ||
    expiresAt.getTime() > now.getTime() + MAX_CHARGE_TTL_DAYS * 86_400_000
  ) {
    throw errors.validation('request body is invalid', {
      fields: [{ field: 'expiresAt', message: `must be between 1 minute and ${MAX_CHARGE_TTL_DAYS} days from now` }],
    });
  }
  return expiresAt;
}

/** The platform fee on a charge: the merchant's own schedule, else the default. */
export function chargeFee(
  merchant: Pick<Merchant, 'pixFeeBps' | 'pixFeeFixedCents'>,
  defaultFee: { bps: number; fixedCents: number },
  amountCents: number,
): number {
  return computeFee(amountCents, {
    bps: merchant.pixFeeBps ?? defaultFee.bps,
    fixedCents: merchant.pixFeeFixedCents ?? defaultFee.fixedCents,
  });
}

/** Starts (or joins) the charge's workflow, waits for the issue, and answers the stored row. */
export async function issueCharge(deps: IssueDeps, input: ChargeLifecycleInput): Promise<Charge> {
  try {
    return await issueChargeRaw(deps, input);
  } catch (err) {
    throw mapIssueError(err);
  }
}

/**
 * The same issue, failures left as Temporal reports them: for a caller that decides itself what
 * a failure means (a boleto batch retries transient ones, records permanent ones on the row).
 * Read them with `issueFailureOf`.
 */
export async function issueChargeRaw(deps: IssueDeps, input: ChargeLifecycleInput): Promise<Charge> {
  await updateWithStartOrJoin(deps.temporal, chargeLifecycleWorkflow, issueChargeUpdate, {
    workflowId: chargeWorkflowId(input.chargeId),
    taskQueue: deps.taskQueue,
    args: [input],
    merchantId: input.merchantId,
    initialStatus: 'ISSUING',
  });
  const charge = await chargeStore.findCharge(input.chargeId);
  if (!charge) throw new Error(`charge ${input.chargeId} issued but not stored`);
  return charge;
}

/** Why an issue failed, in our words; `transient` when trying again (with a new charge) may work. Null: not an issue failure. */
export interface IssueFailure {
  transient: boolean;
  code: 'PROVIDER_REJECTED' | 'PROVIDER_NOT_ISSUED' | 'PROVIDER_UNAVAILABLE' | 'WORKFLOW_SERVICE_UNAVAILABLE';
  message: string;
}

export function issueFailureOf(err: unknown): IssueFailure | null {
  const failure = applicationFailureOf(err);
  if (failure) {
    if (failure.type === ChargeFailureTypes.pixNotIssued)
      return {
        transient: false,
        code: 'PROVIDER_NOT_ISSUED',
        message: 'the provider answered without the payment data; nothing was issued',
      };
    if (failure.type === ChargeFailureTypes.providerRejected)
      return {
        transient: false,
        code: 'PROVIDER_REJECTED',
        message: 'the provider refused to issue it; nothing was issued',
      };
    return {
      transient: true,
      code: 'PROVIDER_UNAVAILABLE',
      message: 'the provider was unavailable; nothing was issued',
    };
  }
  if (isTemporalUnanswered(err)) {
    return { transient: true, code: 'WORKFLOW_SERVICE_UNAVAILABLE', message: 'the workflow service was unavailable' };
  }
  return null;
}

/** The API's answer to a failed issue, from the one classification (issueFailureOf). */
function mapIssueError(err: unknown): unknown {
  if (err instanceof ApiError) return err;
  const failure = issueFailureOf(err);
  if (!failure) return err;
  switch (failure.code) {
    case 'PROVIDER_NOT_ISSUED':
      return errors.pixNotIssued();
    case 'PROVIDER_REJECTED':
      return errors.providerError('the Pix provider refused to issue the charge; no charge was created');
    case 'PROVIDER_UNAVAILABLE':
      return errors.providerError('the Pix provider is unavailable; no charge was created, retry later');
    case 'WORKFLOW_SERVICE_UNAVAILABLE':
      // The one Temporal mapping: it also says when to retry (Retry-After) a run not ready yet.
      return temporalErrorToApi(err, {
        unavailable: 'the workflow service is unavailable; retry with the same idempotency key',
      });
  }
}

/**
 * Issuing a charge, as both the API (a create request) and the worker (a boleto batch's items)
 * do it: a ChargeLifecycle workflow started with Update-With-Start, whose update answers once the
 * payment data is issued and the charge row committed, so the answer and the durable state
 * agree; then the stored row. Failures are left as Temporal reports them, read with
 * `issueFailureOf`: the API answers them (api/charges/issueCharge.ts), a boleto batch retries
 * transient ones and records permanent ones on the row. Neither talks to the provider itself.
 */
import type { Client } from '@temporalio/client';
import { applicationFailureOf, isTemporalUnanswered } from '../../core/temporal/failures';
import { updateWithStartOrJoin } from '../../core/temporal/updateWithStart';
import { issueChargeUpdate, chargeLifecycleWorkflow, chargeWorkflowId } from '../../workflows/charges/definitions';
import { ChargeFailureTypes, type ChargeLifecycleInput } from '../../workflows/charges/types';
import type { Charge } from './charge';
import * as chargeStore from './chargeStore';

export interface IssueDeps {
  temporal: Client;
  taskQueue: string;
}

/** Starts (or joins) the charge's workflow, waits for the issue, and answers the stored row. */
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
  code:
    | 'PROVIDER_REJECTED'
    | 'PROVIDER_NOT_ISSUED'
    | 'PROVIDER_UNAVAILABLE'
    | 'PSP_CONNECTION_REVOKED'
    | 'PSP_CONNECTION_REQUIRED'
    | 'SPLIT_NOT_POSSIBLE'
    | 'WORKFLOW_SERVICE_UNAVAILABLE';
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
    if (failure.type === ChargeFailureTypes.connectionRevoked)
      return {
        transient: false,
        code: 'PSP_CONNECTION_REVOKED',
        message: "the merchant's PSP connection was revoked; nothing was issued",
      };
    if (failure.type === ChargeFailureTypes.connectionRequired)
      return {
        transient: false,
        code: 'PSP_CONNECTION_REQUIRED',
        message: 'the merchant has no PSP connection and this platform holds no merchant’s money; nothing was issued',
      };
    if (failure.type === ChargeFailureTypes.splitNotPossible)
      return { transient: false, code: 'SPLIT_NOT_POSSIBLE', message: failure.message };
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

/**
 * The one way the API issues a charge, whichever API asked (seller routes, application API):
 * the issue both processes run (db/charges/issue.ts), its failures answered in the API's words.
 * The API never talks to the provider itself.
 */
import { chargeExpiry, MAX_CHARGE_TTL_DAYS } from '../../core/charges/issueRules';
import { issueChargeRaw, issueFailureOf, type Charge, type IssueDeps } from '../../db/charges';
import type { ChargeLifecycleInput } from '../../workflows/charges/types';
import { temporalErrorToApi } from '../temporal/temporalErrors';
import { ApiError, errors } from '../errors/apiError';
import { accountModelErrors } from '../connections/accountModel';

/** The expiry a create request asks for (or the default), or the 400 when it is out of bounds. */
export function chargeExpiryOrInvalid(requested: string | undefined, now: Date, defaultTtlSeconds: number): Date {
  const expiresAt = chargeExpiry(requested, now, defaultTtlSeconds);
  if (expiresAt) return expiresAt;
  throw errors.validation('request body is invalid', {
    fields: [{ field: 'expiresAt', message: `must be between 1 minute and ${MAX_CHARGE_TTL_DAYS} days from now` }],
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
    case 'PSP_CONNECTION_REVOKED':
      return accountModelErrors.connectionRevoked();
    case 'PSP_CONNECTION_REQUIRED':
      return accountModelErrors.connectionRequired();
    case 'SPLIT_NOT_POSSIBLE':
      return accountModelErrors.splitNotPossible(failure.message);
    case 'PROVIDER_UNAVAILABLE':
      return errors.providerError('the Pix provider is unavailable; no charge was created, retry later');
    case 'WORKFLOW_SERVICE_UNAVAILABLE':
      // The one Temporal mapping: it also says when to retry (Retry-After) a run not ready yet.
      return temporalErrorToApi(err, {
        unavailable: 'the workflow service is unavailable; retry with the same idempotency key',
      });
  }
}

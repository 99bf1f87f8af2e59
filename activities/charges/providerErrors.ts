/** The provider's errors as the charge activities' failures, and its "no such charge". */
import { ApplicationFailure } from '@temporalio/activity';
import {
  PSP_CONNECTION_REQUIRED,
  PSP_CONNECTION_REVOKED,
  ProviderError,
  type PixProvider,
  type ProviderCharge,
} from '../../core/provider';
import { ChargeFailureTypes } from '../../workflows/charges/types';

/** A Retry-After past this is waited out in steps: the settling policy's longest interval. */
const MAX_PROVIDER_WAIT_MS = 5 * 60_000;

/** The provider's charge, or null when the provider says it has none. */
export async function getChargeOrNull(provider: PixProvider, providerChargeId: string): Promise<ProviderCharge | null> {
  try {
    return await provider.getCharge(providerChargeId);
  } catch (err) {
    if (isNoRecord(err)) return null;
    throw err;
  }
}

/** The provider's own "no such charge" (a bare 404 from a proxy or a wrong URL is not one). */
export function isNoRecord(err: unknown): boolean {
  return err instanceof ProviderError && err.httpStatus === 404 && err.code === 'CHARGE_NOT_FOUND';
}

/**
 * Transient provider errors are retried by Temporal; permanent ones end the attempt chain. An
 * answer of unknown outcome (PROVIDER_OUTCOME_UNKNOWN) is transient: the retry addresses the same
 * cob (its txid is our charge id's), so it finds what the lost answer created.
 */
export function toActivityFailure(err: unknown): unknown {
  if (err instanceof ProviderError) {
    if (err.transient) return retryable(err);
    if (err.code === PSP_CONNECTION_REVOKED)
      return ApplicationFailure.nonRetryable(err.message, ChargeFailureTypes.connectionRevoked);
    if (err.code === PSP_CONNECTION_REQUIRED)
      return ApplicationFailure.nonRetryable(err.message, ChargeFailureTypes.connectionRequired);
    return ApplicationFailure.nonRetryable(err.message, ChargeFailureTypes.providerRejected);
  }
  return err;
}

/**
 * For steps that must finish (close, settle): any provider error is retried with backoff. A
 * refusal here (401 after a key rotation, 403, 409) says nothing about the payment, so waiting
 * for the provider (and an operator) beats failing the charge's run for good.
 */
export function toRetryable(err: unknown): unknown {
  if (err instanceof ProviderError) return retryable(err);
  return err;
}

/** Retried after the wait the provider asked for (Retry-After on a 429 or 503), else on the activity's own backoff. */
function retryable(err: ProviderError): ApplicationFailure {
  return ApplicationFailure.create({
    message: err.message,
    type: ChargeFailureTypes.providerUnavailable,
    nonRetryable: false,
    ...(err.retryAfterMs !== null ? { nextRetryDelay: Math.min(err.retryAfterMs, MAX_PROVIDER_WAIT_MS) } : {}),
  });
}

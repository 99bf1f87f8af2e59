/**
 * How a withdrawal's refusals are answered. Shared with /settlements (api/settlements/service.ts):
 * a settlement makes the same reservation and meets the same refusals.
 */
import { WithdrawalFailureTypes } from '../../workflows/withdrawals/types';
import { ApiError, errors } from '../errors/apiError';
import { effectKept } from '../idempotency/idempotencyService';
import { temporalErrorToApi } from '../temporal/temporalErrors';
import { accountModelErrors } from '../connections/accountModel';

/** A refused or interrupted withdrawal request, as the API answers it. */
export function mapRequestError(err: unknown): unknown {
  return temporalErrorToApi(err, {
    failures: {
      [WithdrawalFailureTypes.insufficientBalance]: (failure) =>
        errors.insufficientBalance(balanceDetails(failure.details)),
      [WithdrawalFailureTypes.frozen]: () => errors.withdrawalFrozen(),
      [WithdrawalFailureTypes.pixKeyMissing]: () => pixKeyNotRegistered(),
      [WithdrawalFailureTypes.merchantInactive]: () => errors.merchantIdRequired(),
      [WithdrawalFailureTypes.moneyInOwnAccount]: () => accountModelErrors.moneyInOwnAccount(),
      // The workflow made sure nothing was reserved, and left a FAILED / NOT_PROCESSED row under
      // the claim's id: that row is the key's one effect, so the key stays bound to it and a
      // retry answers it (never a second row).
      [WithdrawalFailureTypes.reservationUnavailable]: () =>
        effectKept(
          errors.unavailable(
            'the reservation could not be made; nothing was debited. The request is recorded as FAILED ' +
              '(NOT_PROCESSED): a retry with this idempotency key answers it; use a new key to try again',
          ),
        ),
    },
    // E.g. the run was terminated by an operator: unknown whether it reserved. A retry with the
    // same key resumes this withdrawal id and finds out.
    otherFailure: () =>
      errors.unavailable('the withdrawal request was interrupted; retry with the same idempotency key'),
    unavailable: 'the workflow service is unavailable; retry with the same idempotency key',
  });
}

/** Not a body problem but the merchant's set-up; still VALIDATION_ERROR, with a reason to branch on. */
export function pixKeyNotRegistered(): ApiError {
  return errors.validation('the merchant has no Pix key registered for withdrawals', {
    reason: 'PIX_KEY_NOT_REGISTERED',
    fields: [
      {
        field: 'merchant.pixKey',
        message: "ask support to register the merchant's own Pix key (CLI: merchant set-pix-key)",
      },
    ],
  });
}

function balanceDetails(details: unknown[] | undefined | null): Record<string, unknown> | null {
  const first = details?.[0] as { requiredCents?: unknown; availableCents?: unknown } | undefined;
  if (typeof first?.requiredCents !== 'number' || typeof first?.availableCents !== 'number') return null;
  return { requiredCents: first.requiredCents, availableCents: first.availableCents };
}

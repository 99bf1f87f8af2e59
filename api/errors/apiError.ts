/**
 * An error the API answers with, in the spec's envelope. Anything else becomes a 500 INTERNAL_ERROR.
 * `cause` (what a 5xx answers for, e.g. Temporal's refusal) goes to the log only, never to the client.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> | null = null,
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'ApiError';
  }
}

export const errors = {
  validation: (message: string, details: Record<string, unknown> | null = null) =>
    new ApiError(400, 'VALIDATION_ERROR', message, details),
  credentialsRequired: () =>
    new ApiError(401, 'CREDENTIALS_REQUIRED', 'x-client-id and x-client-secret headers are required'),
  invalidCredentials: () => new ApiError(401, 'INVALID_CREDENTIALS', 'client credentials are invalid'),
  merchantIdRequired: () =>
    new ApiError(400, 'MERCHANT_ID_REQUIRED', 'the credential is not linked to an active merchant'),
  notFound: (what = 'resource') => new ApiError(404, 'NOT_FOUND', `${what} not found`),
  duplicateIdempotencyKey: () =>
    new ApiError(409, 'DUPLICATE_IDEMPOTENCY_KEY', 'this idempotency key was already used with a different payload'),
  providerError: (message = 'the Pix provider failed to issue the charge') =>
    new ApiError(502, 'PROVIDER_ERROR', message),
  pixNotIssued: () =>
    new ApiError(502, 'PIX_NOT_ISSUED', 'the provider did not return a Pix payload; no charge was created'),
  unavailable: (message: string, details: Record<string, unknown> | null = null, cause?: unknown) =>
    new ApiError(503, 'SERVICE_UNAVAILABLE', message, details, cause),
  invalidSignature: () => new ApiError(401, 'INVALID_SIGNATURE', 'request signature is missing, invalid or expired'),
  invalidWithdrawalId: () =>
    new ApiError(400, 'INVALID_WITHDRAWAL_ID', 'the withdrawal id must be 1 to 120 characters'),
  insufficientBalance: (details: Record<string, unknown> | null = null) =>
    new ApiError(
      400,
      'INSUFFICIENT_AVAILABLE_BALANCE',
      'the available balance does not cover the amount plus the fee',
      details,
    ),
  withdrawalFrozen: () =>
    new ApiError(
      409,
      'WITHDRAWAL_FROZEN',
      'withdrawals, payouts and refunds are temporarily blocked for this merchant',
    ),
};

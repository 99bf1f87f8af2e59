/**
 * Every error code the API may answer with, its HTTP status and an example message. The codes are
 * the spec's Errors table plus our own (RATE_LIMITED, PAYLOAD_TOO_LARGE, SERVICE_UNAVAILABLE, INSUFFICIENT_SCOPE).
 * Pure data: the OpenAPI helper `errorResponses` reads it, so a route can only document a code
 * that is listed here (a typo fails the type check).
 */
export const ERROR_CODES = {
  VALIDATION_ERROR: { status: 400, message: 'request body is invalid' },
  MERCHANT_ID_REQUIRED: { status: 400, message: 'the credential is not linked to an active merchant' },
  INVALID_WITHDRAWAL_ID: { status: 400, message: 'withdrawal id is empty or invalid' },
  PAYOUTS_NOT_ENABLED: { status: 400, message: 'payouts are not enabled for this merchant' },
  INVALID_AVATAR: { status: 400, message: 'the uploaded file is not a PNG, JPEG or WebP image of at most 2097152 bytes; it was deleted' },
  INSUFFICIENT_AVAILABLE_BALANCE: { status: 400, message: 'available balance cannot fund this batch' },
  IDEMPOTENCY_KEY_REQUIRED: { status: 400, message: 'the Idempotency-Key header is required' },
  CREDENTIALS_REQUIRED: { status: 401, message: 'x-client-id and x-client-secret headers are required' },
  INVALID_CREDENTIALS: { status: 401, message: 'client credentials are invalid' },
  INVALID_SIGNATURE: { status: 401, message: 'request signature is missing, invalid or expired' },
  INSUFFICIENT_SCOPE: { status: 403, message: 'this credential lacks the scope charges:write' },
  UPLOAD_URL_INVALID: { status: 403, message: 'the upload URL is malformed or its signature does not match' },
  UPLOAD_URL_EXPIRED: { status: 403, message: 'the upload URL has expired; ask for a new one' },
  AVATAR_KEY_FORBIDDEN: { status: 403, message: 'this upload key belongs to another user' },
  NOT_FOUND: { status: 404, message: 'Pix charge not found' },
  BATCH_NOT_FOUND: { status: 404, message: 'payout batch not found' },
  UPLOAD_NOT_FOUND: { status: 404, message: 'nothing was uploaded under this key' },
  CHECKOUT_NOT_FOUND: { status: 404, message: 'checkout not found' },
  DUPLICATE_IDEMPOTENCY_KEY: { status: 409, message: 'this idempotency key was already used with a different payload' },
  WITHDRAWAL_FROZEN: { status: 409, message: 'withdrawals and payouts are temporarily blocked' },
  RECEIPT_UNAVAILABLE: { status: 409, message: 'the transaction is not paid yet' },
  UPLOAD_ALREADY_EXISTS: { status: 409, message: 'a file was already uploaded to this URL; ask for a new one' },
  WEBHOOK_DISABLED: { status: 409, message: 'the webhook is disabled; enable it (PATCH active: true) before resending' },
  BATCH_NOT_CANCELLABLE: { status: 409, message: 'batch is COMPLETED; only PROCESSING batches can be cancelled' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'request body is too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Content-Type must be the one the upload URL was signed for' },
  FREQUENCY_NOT_ENABLED_YET: { status: 422, message: 'only frequency ONE_TIME is enabled' },
  CUSTOMER_NOT_ENABLED_IN_P0: { status: 422, message: 'customerId is not enabled in P0' },
  COUPONS_NOT_ENABLED_IN_P0: { status: 422, message: 'coupons are not enabled in P0' },
  COURSE_PRICE_NOT_FOUND: { status: 422, message: 'course price not found' },
  COURSE_PRICE_INACTIVE: { status: 422, message: 'course price is inactive' },
  COURSE_PRICE_NOT_OWNED_BY_MERCHANT: { status: 422, message: 'course price belongs to another merchant' },
  COURSE_PRICE_TYPE_NOT_ENABLED_YET: { status: 422, message: 'only ONE_TIME course prices are enabled' },
  INVALID_CHECKOUT_ID: { status: 422, message: 'id must have the form bill_*' },
  RATE_LIMITED: { status: 429, message: 'too many requests; retry later' },
  INTERNAL_ERROR: { status: 500, message: 'internal error; quote the traceId to support' },
  PIX_NOT_ISSUED: { status: 502, message: 'the provider did not return a Pix payload; no charge was created' },
  PROVIDER_ERROR: { status: 502, message: 'the Pix provider is unavailable; no charge was created, retry later' },
  SERVICE_UNAVAILABLE: { status: 503, message: 'the workflow service is unavailable; retry with the same idempotency key' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export const ERROR_CODE_LIST = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];

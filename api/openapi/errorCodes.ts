/**
 * Every error code the API may answer with, its HTTP status and an example message. The codes are
 * the spec's Errors table plus our own (RATE_LIMITED, PAYLOAD_TOO_LARGE, SERVICE_UNAVAILABLE, INSUFFICIENT_SCOPE,
 * METHOD_NOT_ALLOWED: api/middleware/methodNotAllowed.ts, answered with an `Allow` header).
 * Pure data: the OpenAPI helper `errorResponses` reads it, so a route can only document a code
 * that is listed here (a typo fails the type check).
 */
export const ERROR_CODES = {
  VALIDATION_ERROR: { status: 400, message: 'request body is invalid' },
  EVIDENCE_INVALID: {
    status: 400,
    message: 'evidence med-evidence/…: the file is not a PDF, PNG or JPEG (read from its bytes); it was deleted',
  },
  MERCHANT_ID_REQUIRED: { status: 400, message: 'the credential is not linked to an active merchant' },
  INVALID_WITHDRAWAL_ID: { status: 400, message: 'withdrawal id is empty or invalid' },
  PAYOUTS_NOT_ENABLED: { status: 400, message: 'payouts are not enabled for this merchant' },
  INVALID_AVATAR: {
    status: 400,
    message: 'the uploaded file is not a PNG, JPEG or WebP image of at most 2097152 bytes; it was deleted',
  },
  INSUFFICIENT_AVAILABLE_BALANCE: { status: 400, message: 'available balance cannot fund this batch' },
  IDEMPOTENCY_KEY_REQUIRED: {
    status: 400,
    message: 'send an Idempotency-Key (or x-idempotency-key) header: this request must be safe to retry',
  },
  AUTHENTICATION_REQUIRED: { status: 401, message: 'Authorization: Bearer <access token> is required' },
  INVALID_ACCESS_TOKEN: { status: 401, message: 'the access token is invalid or expired; refresh it' },
  INVALID_LOGIN: { status: 401, message: 'e-mail or password is wrong' },
  INVALID_SECOND_FACTOR_CODE: { status: 401, message: 'the code is wrong, expired or already used' },
  INVALID_CHALLENGE: { status: 401, message: 'the challenge token is invalid, expired or already used' },
  REFRESH_TOKEN_MISSING: { status: 401, message: 'the refresh_token cookie is missing' },
  REFRESH_TOKEN_INVALID: { status: 401, message: 'the refresh token is invalid or expired; log in again' },
  REFRESH_TOKEN_REUSED: {
    status: 401,
    message: 'this refresh token was already used; the session was ended, log in again',
  },
  CSRF_TOKEN_INVALID: { status: 403, message: 'x-csrf-token is missing or does not match the csrf cookie' },
  SECOND_FACTOR_REQUIRED: {
    status: 403,
    message: 'this action needs a second factor: send x-action-token from /auth/2fa/action/confirm',
  },
  INVALID_PASSWORD: { status: 403, message: 'the current password is wrong' },
  INSUFFICIENT_ROLE: { status: 403, message: 'your role on this merchant does not allow this' },
  PLATFORM_OPERATOR_REQUIRED: {
    status: 403,
    message: 'only platform operators read the platform-wide reconciliations',
  },
  CREDENTIALS_REQUIRED: { status: 401, message: 'x-client-id and x-client-secret headers are required' },
  INVALID_CREDENTIALS: { status: 401, message: 'client credentials are invalid' },
  INVALID_SIGNATURE: { status: 401, message: 'request signature is missing, invalid or expired' },
  INVALID_METRICS_TOKEN: { status: 401, message: 'Authorization: Bearer <METRICS_TOKEN> is missing or wrong' },
  INSUFFICIENT_SCOPE: { status: 403, message: 'this credential lacks the scope charges:write' },
  UPLOAD_URL_INVALID: { status: 403, message: 'the upload URL is malformed or its signature does not match' },
  UPLOAD_URL_EXPIRED: { status: 403, message: 'the upload URL has expired; ask for a new one' },
  AVATAR_KEY_FORBIDDEN: { status: 403, message: 'this upload key belongs to another user' },
  INFRACTION_OWNER_ONLY: {
    status: 403,
    message: "only the charge's owner answers this infraction; a split partner the claim reached reads it",
  },
  NOT_FOUND: { status: 404, message: 'Pix charge not found' },
  BATCH_NOT_FOUND: { status: 404, message: 'payout batch not found' },
  UPLOAD_NOT_FOUND: { status: 404, message: 'nothing was uploaded under this key' },
  CHECKOUT_NOT_FOUND: { status: 404, message: 'checkout not found' },
  SUBSCRIPTION_NOT_FOUND: { status: 404, message: 'subscription not found' },
  MERCHANT_NOT_FOUND: {
    status: 404,
    message: 'you have no merchant yet; create one with POST /dashboard/merchant/ensure',
  },
  CHARGE_NOT_FOUND: { status: 404, message: 'charge not found' },
  BOLETO_NOT_FOUND: { status: 404, message: 'boleto not found' },
  BOLETO_BATCH_NOT_FOUND: { status: 404, message: 'boleto batch not found' },
  CREDENTIAL_NOT_FOUND: { status: 404, message: 'API credential not found' },
  COURSE_NOT_FOUND: { status: 404, message: 'course not found' },
  PRICE_NOT_FOUND: { status: 404, message: 'price not found' },
  MODULE_NOT_FOUND: { status: 404, message: 'module not found' },
  LESSON_NOT_FOUND: { status: 404, message: 'lesson not found' },
  ENROLMENT_NOT_FOUND: { status: 404, message: 'enrolment not found' },
  RECONCILIATION_NOT_FOUND: { status: 404, message: 'reconciliation not found' },
  SETTLEMENT_NOT_FOUND: { status: 404, message: 'settlement not found' },
  SETTLEMENT_SCHEDULE_NOT_FOUND: { status: 404, message: 'this merchant has no settlement schedule' },
  INFRACTION_NOT_FOUND: { status: 404, message: 'infraction not found' },
  PSP_CONNECTION_NOT_FOUND: {
    status: 404,
    message: 'this merchant has no PSP connection: register one with POST /dashboard/connection',
  },
  DUPLICATE_IDEMPOTENCY_KEY: { status: 409, message: 'this idempotency key was already used with a different payload' },
  SUBSCRIPTION_ALREADY_ENDED: { status: 409, message: 'the subscription already ended (CANCELLED)' },
  EMAIL_ALREADY_REGISTERED: { status: 409, message: 'an account with this e-mail already exists' },
  CHARGE_NOT_REFUNDABLE: { status: 409, message: 'the charge is PENDING; only a PAID charge can be refunded' },
  REFUND_EXCEEDS_PAID_AMOUNT: { status: 409, message: 'at most 500 cents of this charge can still be refunded' },
  INSUFFICIENT_BALANCE_FOR_REFUND: {
    status: 409,
    message: 'the available balance does not cover this refund; nothing was refunded',
  },
  REFUND_INFRACTION_OPEN: {
    status: 409,
    message:
      'this charge has an open Pix infraction (MED): it cannot be refunded until the infraction is decided; nothing was refunded',
  },
  MERCHANT_INACTIVE: { status: 409, message: 'the merchant is not active; no money can leave its balance' },
  INFRACTION_ALREADY_DECIDED: { status: 409, message: 'this infraction was already decided (ACCEPTED)' },
  DEFENCE_ALREADY_SUBMITTED: { status: 409, message: 'a defence was already submitted for this infraction' },
  CHARGE_NOT_CANCELLABLE: { status: 409, message: 'the charge is PAID; only PENDING charges can be cancelled' },
  CHARGE_NOT_BOLETO: { status: 409, message: 'the charge is not a boleto; it has no boleto PDF' },
  BOLETO_NOT_CANCELLABLE: {
    status: 409,
    message: 'this boleto of the batch FAILED: it was never issued, so there is nothing to cancel',
  },
  REFRESH_IN_PROGRESS: { status: 409, message: 'this refresh token is being used by another request' },
  SECOND_FACTOR_ALREADY_ENABLED: { status: 409, message: 'this second factor is already on' },
  SECOND_FACTOR_NOT_PENDING: { status: 409, message: 'start the setup first' },
  MERCHANT_HAS_BALANCE: { status: 409, message: 'the account owns a merchant that still holds money' },
  WITHDRAWAL_FROZEN: { status: 409, message: 'withdrawals and payouts are temporarily blocked' },
  PSP_CONNECTION_EXISTS: {
    status: 409,
    message: 'this merchant already has an active PSP connection: revoke it first (POST /dashboard/connection/revoke)',
  },
  PSP_CONNECTION_REQUIRED: {
    status: 409,
    message:
      'this platform holds no merchant’s money: register your own PSP connection before charging or sending money',
  },
  PSP_CONNECTION_REVOKED: {
    status: 409,
    message: 'your PSP connection was revoked: register a new one before charging or sending money',
  },
  PSP_CONNECTION_ROTATION_SUPERSEDED: {
    status: 409,
    message:
      'another rotation (or a revocation) of this connection came first: yours was not applied; read the connection and send it again if it should win',
  },
  PSP_CONNECTION_TEST_FAILED: {
    status: 422,
    message:
      'rotation refused, your current secrets stay in use: the new ones failed their test: the PSP refused the client id or client secret: no token was issued',
  },
  SPLIT_NOT_POSSIBLE: {
    status: 422,
    message:
      "SPLIT_RECIPIENT_NOT_AT_PSP: recipient 6f1c… has no account at the merchant's PSP nor a PSP connection elsewhere: neither Split Pix nor a send from your account can pay it",
  },
  MONEY_IN_OWN_ACCOUNT: {
    status: 409,
    message:
      'your money is already in your own PSP account (connected account model): move it from there; nothing passes through the platform',
  },
  RECEIPT_UNAVAILABLE: { status: 409, message: 'the transaction is not paid yet' },
  UPLOAD_ALREADY_EXISTS: { status: 409, message: 'a file was already uploaded to this URL; ask for a new one' },
  WEBHOOK_DISABLED: {
    status: 409,
    message: 'the webhook is disabled; enable it (PATCH active: true) before resending',
  },
  ENROLMENT_WITHOUT_ACCESS: {
    status: 409,
    message: 'the enrolment gives no access now (a subscription not yet paid, suspended or cancelled)',
  },
  ENROLMENT_REVOKED: {
    status: 409,
    message: 'the enrolment is REVOKED (its charge was refunded): progress cannot be recorded',
  },
  CERTIFICATE_UNAVAILABLE: {
    status: 409,
    message: 'no certificate yet: it is issued when every lesson of the course is completed',
  },
  COURSE_ARCHIVED: {
    status: 409,
    message: 'the course is ARCHIVED: it, its prices, modules and lessons are read-only',
  },
  INVALID_COURSE_TRANSITION: { status: 409, message: 'the course is ARCHIVED; it cannot be published again' },
  BATCH_NOT_CANCELLABLE: { status: 409, message: 'batch is COMPLETED; only PROCESSING batches can be cancelled' },
  METHOD_NOT_ALLOWED: {
    status: 405,
    message: 'DELETE is not allowed on this path; it takes GET, HEAD, POST',
  },
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
  COURSE_PRICE_NOT_SUBSCRIPTION: { status: 422, message: 'course price is ONE_TIME, not SUBSCRIPTION' },
  INVALID_SUBSCRIPTION_ID: { status: 422, message: 'id must be a subscription id (a UUID)' },
  REFUND_DESTINATION_NOT_PAYER: {
    status: 422,
    message: "a boleto is refunded only to a Pix key of its payer; this key's owner is someone else",
  },
  PIX_KEY_NOT_FOUND: { status: 422, message: 'the Pix key was not found in the Pix directory (DICT)' },
  RATE_LIMITED: { status: 429, message: 'too many requests; retry later' },
  TOO_MANY_ATTEMPTS: { status: 429, message: 'too many failed attempts; retry after the time in Retry-After' },
  TOO_MANY_STREAMS: {
    status: 429,
    message:
      'at most 3 status streams may be open for one checkout; poll GET /c/{checkoutId}/status instead, or retry after Retry-After',
  },
  INTERNAL_ERROR: { status: 500, message: 'internal error; quote the traceId to support' },
  PIX_NOT_ISSUED: { status: 502, message: 'the provider did not return a Pix payload; no charge was created' },
  PSP_WEBHOOK_NOT_REGISTERED: {
    status: 502,
    message:
      'the PSP did not register the webhook: the client may not register webhooks (the PSP denied the scope webhook.write)',
  },
  PROVIDER_ERROR: { status: 502, message: 'the Pix provider is unavailable; no charge was created, retry later' },
  SERVICE_UNAVAILABLE: {
    status: 503,
    message: 'the workflow service is unavailable; retry with the same idempotency key',
  },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export const ERROR_CODE_LIST = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];

/** OpenAPI for /dashboard/connection (router.ts), from the schemas that validate it (schema.ts). */
import { z } from 'zod';
import {
  bearerPaths,
  errorResponses,
  jsonResponse,
  registry,
  requiredIdempotencyHeaders,
  requiredIdempotencyRule,
} from '../openapi/registry';
import {
  connectionActionBody,
  connectionQuery,
  connectionTestView,
  connectionView,
  registerConnectionBody,
  rotateConnectionBody,
  webhookRegistrationView,
} from './schema';

// Derived copies (.describe): the routers import schema.ts before the registry extends zod.
const PspConnection = registry.register(
  'PspConnection',
  connectionView.describe(
    'A merchant’s own PSP connection (the connected account model): its plain fields and the fingerprint of its certificate. ' +
      'Never a secret (client secret, private key, PKCS#12, passphrase) nor their sealed envelopes: they are sealed at registration (and at a rotation, which carries over what it does not replace) and only the worker uses them.',
  ),
);
const PspConnectionTest = registry.register(
  'PspConnectionTest',
  connectionTestView.describe(
    'One test of the connection: a token taken, the webhook of the Pix key and the balance read with the merchant’s own credentials; what is missing in our words.',
  ),
);
const RegisterPspConnectionRequest = registry.register(
  'RegisterPspConnectionRequest',
  registerConnectionBody.describe(
    'The connection’s fields and secrets. The certificate is given one way: `certPem` + `keyPem`, or `pfxBase64` (+ `pfxPassphrase`). ' +
      'Sizes: PEM fields at most 20000 characters, `pfxBase64` and `caPem` at most 40000, secrets at most 1000.',
  ),
);
const RotatePspConnectionRequest = registry.register(
  'RotatePspConnectionRequest',
  rotateConnectionBody.describe(
    'What is rotated: `clientSecret`, the certificate (`certPem` + `keyPem`, or `pfxBase64` (+ `pfxPassphrase`)), `caPem` (null: no extra CA), or several; ' +
      'at least one of them. What is not given is kept. The client id, Pix key and URLs stay (changing them is a new connection). Sizes as at registration.',
  ),
);
const PspConnectionAction = registry.register(
  'PspConnectionActionRequest',
  connectionActionBody.describe('The merchant whose connection this acts on.'),
);
const PspWebhookRegistration = registry.register(
  'PspConnectionWebhook',
  webhookRegistrationView.describe('The connection’s own notification URL, as registered at its PSP.'),
);

const bearerErrors = ['AUTHENTICATION_REQUIRED', 'INVALID_ACCESS_TOKEN', 'RATE_LIMITED'] as const;
const NOT_MEMBER = 'A merchant you do not belong to → 404 MERCHANT_NOT_FOUND.';
const OWNER = `Owner only (another role → 403 INSUFFICIENT_ROLE). ${NOT_MEMBER}`;
/** Register and rotate: both idempotent by key, both behind the psp-connection second factor. */
const REPLAY_AND_SECOND_FACTOR =
  'A replay with the same body answers the same connection; another body → 409 DUPLICATE_IDEMPOTENCY_KEY. When you have a second factor on, it also needs `x-action-token` for "psp-connection". ';
const MANAGERS = `Owner and admin (another role → 403 INSUFFICIENT_ROLE). ${NOT_MEMBER}`;
const actionToken = z
  .string()
  .optional()
  .openapi({
    param: {
      name: 'x-action-token',
      in: 'header',
      description: 'An action token for "psp-connection"; required when you have a second factor on.',
    },
  });
const WORKER =
  'The API never calls a PSP: this runs as a short workflow whose activity makes the calls in the worker; the answer waits for it at most a minute ' +
  '(no worker in time, or the workflow service down → 503 SERVICE_UNAVAILABLE, nothing changed: retry). ';

const path = bearerPaths('PSP connection');

path('get', '/dashboard/connection', 'getPspConnection', 'Read the merchant’s PSP connection', {
  description: `The active connection, else the newest revoked one; none → 404 PSP_CONNECTION_NOT_FOUND. Every member reads it. ${NOT_MEMBER}`,
  request: { query: connectionQuery },
  responses: {
    200: jsonResponse('The connection (no secret).', PspConnection),
    ...errorResponses('VALIDATION_ERROR', 'PSP_CONNECTION_NOT_FOUND', 'MERCHANT_NOT_FOUND', ...bearerErrors),
  },
});

path('post', '/dashboard/connection', 'registerPspConnection', 'Register the merchant’s PSP connection', {
  description:
    'From now on the merchant’s charges are issued at its own PSP account (docs/account-models.md). The material is proven usable (a key that does not match its certificate, ' +
    'a PKCS#12 that does not open with its passphrase, a CA bundle without a certificate → 400 VALIDATION_ERROR naming the field, never its content), sealed under the operator’s master key and stored; ' +
    'no PSP is called here: test it next (POST /dashboard/connection/test) and register its webhook (POST /dashboard/connection/webhook). ' +
    'An active connection already there → 409 PSP_CONNECTION_EXISTS (revoke it first). ' +
    requiredIdempotencyRule('x-idempotency-key') +
    REPLAY_AND_SECOND_FACTOR +
    OWNER,
  request: {
    body: { required: true, content: { 'application/json': { schema: RegisterPspConnectionRequest } } },
    headers: [...requiredIdempotencyHeaders('x-idempotency-key'), actionToken],
  },
  responses: {
    201: jsonResponse('Registered (not tested yet: lastTest is null).', PspConnection),
    ...errorResponses(
      'VALIDATION_ERROR',
      'IDEMPOTENCY_KEY_REQUIRED',
      'MERCHANT_NOT_FOUND',
      'INSUFFICIENT_ROLE',
      'SECOND_FACTOR_REQUIRED',
      'PSP_CONNECTION_EXISTS',
      'DUPLICATE_IDEMPOTENCY_KEY',
      'PAYLOAD_TOO_LARGE',
      ...bearerErrors,
    ),
  },
});

path(
  'post',
  '/dashboard/connection/rotate',
  'rotatePspConnection',
  'Rotate the secrets of the merchant’s PSP connection',
  {
    description:
      'Without downtime: the new material is proven usable as at registration (400 VALIDATION_ERROR naming the field, never its content), sealed and stored as pending beside the active one, ' +
      'which goes on serving every charge and send; then it is tested with the merchant’s PSP (a token, the webhook of the Pix key, the balance) and becomes the active material only if the test passes. ' +
      'A failed test → 422 PSP_CONNECTION_TEST_FAILED with its problems in our words (`details.problems`): the new material is dropped, the active one stays. ' +
      'Rotate at the PSP first (a new client secret or certificate), then here: the client id stays. ' +
      WORKER +
      'Another rotation or a revocation meanwhile → 409 PSP_CONNECTION_ROTATION_SUPERSEDED. No connection → 404 PSP_CONNECTION_NOT_FOUND; revoked → 409 PSP_CONNECTION_REVOKED. ' +
      requiredIdempotencyRule('x-idempotency-key') +
      REPLAY_AND_SECOND_FACTOR +
      OWNER,
    request: {
      body: { required: true, content: { 'application/json': { schema: RotatePspConnectionRequest } } },
      headers: [...requiredIdempotencyHeaders('x-idempotency-key'), actionToken],
    },
    responses: {
      200: jsonResponse(
        'Rotated: the connection with its new certificate’s fingerprint and the passing test as lastTest.',
        PspConnection,
      ),
      ...errorResponses(
        'VALIDATION_ERROR',
        'IDEMPOTENCY_KEY_REQUIRED',
        'MERCHANT_NOT_FOUND',
        'INSUFFICIENT_ROLE',
        'SECOND_FACTOR_REQUIRED',
        'PSP_CONNECTION_NOT_FOUND',
        'PSP_CONNECTION_REVOKED',
        'PSP_CONNECTION_ROTATION_SUPERSEDED',
        'PSP_CONNECTION_TEST_FAILED',
        'DUPLICATE_IDEMPOTENCY_KEY',
        'PAYLOAD_TOO_LARGE',
        'SERVICE_UNAVAILABLE',
        ...bearerErrors,
      ),
    },
  },
);

path('post', '/dashboard/connection/revoke', 'revokePspConnection', 'Revoke the merchant’s PSP connection', {
  description:
    'Its charges and sends stop with PSP_CONNECTION_REVOKED until a new one is registered; they never fall back to the platform’s account. ' +
    'No connection → 404 PSP_CONNECTION_NOT_FOUND; already revoked → 409 PSP_CONNECTION_REVOKED. When you have a second factor on, it needs `x-action-token` for "psp-connection". ' +
    OWNER,
  request: {
    body: { required: true, content: { 'application/json': { schema: PspConnectionAction } } },
    headers: [actionToken],
  },
  responses: {
    200: jsonResponse('Revoked.', PspConnection),
    ...errorResponses(
      'VALIDATION_ERROR',
      'MERCHANT_NOT_FOUND',
      'INSUFFICIENT_ROLE',
      'SECOND_FACTOR_REQUIRED',
      'PSP_CONNECTION_NOT_FOUND',
      'PSP_CONNECTION_REVOKED',
      ...bearerErrors,
    ),
  },
});

path('post', '/dashboard/connection/test', 'testPspConnection', 'Test the merchant’s PSP connection', {
  description:
    'Takes a token, reads the webhook of the Pix key and the balance with the merchant’s own credentials and certificate, and records the result as the connection’s lastTest. ' +
    'A test that finds problems is still 200 (ok: false, problems in our words). ' +
    WORKER +
    'No connection → 404 PSP_CONNECTION_NOT_FOUND; revoked → 409 PSP_CONNECTION_REVOKED. ' +
    MANAGERS,
  request: { body: { required: true, content: { 'application/json': { schema: PspConnectionAction } } } },
  responses: {
    200: jsonResponse('The test’s result.', PspConnectionTest),
    ...errorResponses(
      'VALIDATION_ERROR',
      'MERCHANT_NOT_FOUND',
      'INSUFFICIENT_ROLE',
      'PSP_CONNECTION_NOT_FOUND',
      'PSP_CONNECTION_REVOKED',
      'SERVICE_UNAVAILABLE',
      ...bearerErrors,
    ),
  },
});

path(
  'post',
  '/dashboard/connection/webhook',
  'registerPspConnectionWebhook',
  'Register the connection’s webhook at its PSP',
  {
    description:
      'PUT /webhook/{chave} at the merchant’s PSP for the connection’s Pix key, pointing at the connection’s own notification URL ' +
      '(`/webhooks/pix-api/connections/{id}/{secret}`, whose secret is never shown); left alone when already there. ' +
      WORKER +
      'The PSP refused or could not be reached → 502 PSP_WEBHOOK_NOT_REGISTERED, saying why in our words. No connection → 404 PSP_CONNECTION_NOT_FOUND; revoked → 409 PSP_CONNECTION_REVOKED. ' +
      MANAGERS,
    request: { body: { required: true, content: { 'application/json': { schema: PspConnectionAction } } } },
    responses: {
      200: jsonResponse('Registered, or already there.', PspWebhookRegistration),
      ...errorResponses(
        'VALIDATION_ERROR',
        'MERCHANT_NOT_FOUND',
        'INSUFFICIENT_ROLE',
        'PSP_CONNECTION_NOT_FOUND',
        'PSP_CONNECTION_REVOKED',
        'PSP_WEBHOOK_NOT_REGISTERED',
        'SERVICE_UNAVAILABLE',
        ...bearerErrors,
      ),
    },
  },
);

/** OpenAPI for /checkout/sessions (router.ts), from the schemas that validate it (schema.ts). */
import { z } from 'zod';
import {
  errorResponses,
  jsonResponse,
  registry,
  requiredIdempotencyHeaders,
  requiredIdempotencyRule,
  security,
} from '../../openapi/registry';
import { checkoutSession, checkoutSessionStatus, createSessionBody } from './schema';

export const CheckoutSession = registry.register(
  'CheckoutSession',
  checkoutSession.describe('A checkout session: a hosted page for an amount, backed by one Pix charge.'),
);
const idParam = z.object({ id: z.uuid().openapi({ description: 'Checkout session id.' }) });
const bearerErrors = ['AUTHENTICATION_REQUIRED', 'INVALID_ACCESS_TOKEN', 'RATE_LIMITED'] as const;

registry.registerPath({
  method: 'post',
  path: '/checkout/sessions',
  operationId: 'createCheckoutSession',
  tags: ['Checkout sessions'],
  summary: 'Create a checkout session',
  description:
    'Role owner, admin or finance on `merchantId`. ' +
    requiredIdempotencyRule('x-idempotency-key') +
    'The same key and body replay the first answer; ' +
    'another body → 409 DUPLICATE_IDEMPOTENCY_KEY. The page at `url` shows the items and the Pix QR; paid → COMPLETED (the charge is `chargeId`).',
  security: security.bearer,
  request: {
    headers: requiredIdempotencyHeaders('x-idempotency-key'),
    body: {
      required: true,
      content: { 'application/json': { schema: registry.register('CreateCheckoutSessionRequest', createSessionBody) } },
    },
  },
  responses: {
    201: jsonResponse(
      'The session, CREATED.',
      CheckoutSession,
      {},
      {
        getCheckoutSession: { id: '$response.body#/id' },
        getCheckoutSessionStatus: { id: '$response.body#/id' },
      },
    ),
    ...errorResponses(
      'VALIDATION_ERROR',
      'IDEMPOTENCY_KEY_REQUIRED',
      'MERCHANT_NOT_FOUND',
      'INSUFFICIENT_ROLE',
      'DUPLICATE_IDEMPOTENCY_KEY',
      'PIX_NOT_ISSUED',
      'PROVIDER_ERROR',
      'SERVICE_UNAVAILABLE',
      ...bearerErrors,
    ),
  },
});

registry.registerPath({
  method: 'get',
  path: '/checkout/sessions/{id}',
  operationId: 'getCheckoutSession',
  tags: ['Checkout sessions'],
  summary: 'Read a checkout session',
  description:
    "Any member of the session's merchant; another merchant's or an unknown session → 404 CHECKOUT_NOT_FOUND.",
  security: security.bearer,
  request: { params: idParam },
  responses: {
    200: jsonResponse('The session.', CheckoutSession),
    ...errorResponses('VALIDATION_ERROR', 'CHECKOUT_NOT_FOUND', ...bearerErrors),
  },
});

registry.registerPath({
  method: 'get',
  path: '/checkout/sessions/{id}/status',
  operationId: 'getCheckoutSessionStatus',
  tags: ['Checkout sessions'],
  summary: 'Poll a checkout session’s status',
  description:
    'Only the status and when it last changed, for polling; the same access rule as GET /checkout/sessions/{id}.',
  security: security.bearer,
  request: { params: idParam },
  responses: {
    200: jsonResponse('Its status.', registry.register('CheckoutSessionStatus', checkoutSessionStatus)),
    ...errorResponses('VALIDATION_ERROR', 'CHECKOUT_NOT_FOUND', ...bearerErrors),
  },
});

/** OpenAPI for /subscriptions and /v1/subscriptions (router.ts), from the schemas that validate them (schema.ts). */
import { z } from 'zod';
import { envelopeOf, p0Errors } from '../checkouts/partner/openapi';
import {
  errorResponses,
  jsonResponse,
  registry,
  requiredIdempotencyHeaders,
  requiredIdempotencyRule,
  security,
  signatureHeaders,
} from '../openapi/registry';
import {
  createPartnerSubscriptionBody,
  createSubscriptionBody,
  listPartnerSubscriptionsQuery,
  listSubscriptionsQuery,
  subscriptionPagination,
  subscriptionView,
} from './schema';

export const Subscription = registry.register(
  'Subscription',
  subscriptionView.describe(
    'A subscription to a course’s SUBSCRIPTION price, paid by Pix Automático: the shape the routes answer and subscription.* events carry.',
  ),
);
const bearerErrors = ['AUTHENTICATION_REQUIRED', 'INVALID_ACCESS_TOKEN', 'RATE_LIMITED'] as const;
const createErrors = [
  'VALIDATION_ERROR',
  'IDEMPOTENCY_KEY_REQUIRED',
  'DUPLICATE_IDEMPOTENCY_KEY',
  'COURSE_PRICE_NOT_FOUND',
  'COURSE_PRICE_NOT_OWNED_BY_MERCHANT',
  'COURSE_PRICE_INACTIVE',
  'COURSE_PRICE_NOT_SUBSCRIPTION',
  'PIX_NOT_ISSUED',
  'PROVIDER_ERROR',
  'PSP_CONNECTION_REVOKED',
  'PSP_CONNECTION_REQUIRED',
  'SERVICE_UNAVAILABLE',
] as const;
const createRules =
  'The price is checked in order (exists → belongs to the merchant → active and course PUBLISHED → type SUBSCRIPTION); the first failure answers. ' +
  'Its amount, period (`interval`) and retry policy are the subscription’s. JOURNEY_3 first issues the first cycle’s Pix charge (`firstChargeId`, open for a day), ' +
  'whose payment through the QR authorises the recurrence; the answer comes once the recurrence exists at the PSP, AWAITING_AUTHORISATION, ' +
  'with `qrCopyPaste` (journeys 2 and 3) or `authorizationRequestId` (journey 1) and the hosted page at `url`. ';
const idParam = z.object({ id: z.uuid().openapi({ description: 'Subscription id.' }) });

registry.registerPath({
  method: 'post',
  path: '/subscriptions',
  operationId: 'createSubscription',
  tags: ['Subscriptions'],
  summary: 'Create a subscription (Pix Automático)',
  description:
    'Role owner, admin or finance on `merchantId` (default: the merchant you own, or first belong to). ' +
    requiredIdempotencyRule('Idempotency-Key') +
    'The same key and body replay the first answer; another body → 409 DUPLICATE_IDEMPOTENCY_KEY. ' +
    createRules,
  security: security.bearer,
  request: {
    headers: requiredIdempotencyHeaders('Idempotency-Key'),
    body: {
      required: true,
      content: {
        'application/json': { schema: registry.register('CreateSubscriptionRequest', createSubscriptionBody) },
      },
    },
  },
  responses: {
    201: jsonResponse(
      'The subscription, AWAITING_AUTHORISATION.',
      Subscription,
      {},
      {
        getSubscription: { id: '$response.body#/id' },
      },
    ),
    ...errorResponses(...createErrors, 'MERCHANT_NOT_FOUND', 'INSUFFICIENT_ROLE', ...bearerErrors),
  },
});

registry.registerPath({
  method: 'get',
  path: '/subscriptions',
  operationId: 'listSubscriptions',
  tags: ['Subscriptions'],
  summary: 'List subscriptions, newest first',
  description:
    'Any member of the merchant. Keyset pages by (createdAt, id), newest first: pass `pagination.next` as `after` for the next page; ' +
    'subscriptions created meanwhile never shift later pages. An `after` naming no subscription of the merchant → 404 SUBSCRIPTION_NOT_FOUND.',
  security: security.bearer,
  request: { query: listSubscriptionsQuery },
  responses: {
    200: jsonResponse(
      'A page.',
      registry.register(
        'SubscriptionPage',
        z.object({ data: z.array(Subscription), pagination: subscriptionPagination }),
      ),
    ),
    ...errorResponses('VALIDATION_ERROR', 'MERCHANT_NOT_FOUND', 'SUBSCRIPTION_NOT_FOUND', ...bearerErrors),
  },
});

registry.registerPath({
  method: 'get',
  path: '/subscriptions/{id}',
  operationId: 'getSubscription',
  tags: ['Subscriptions'],
  summary: 'Read a subscription',
  description:
    "Any member of the subscription's merchant; another merchant's or an unknown subscription → 404 SUBSCRIPTION_NOT_FOUND.",
  security: security.bearer,
  request: { params: idParam },
  responses: {
    200: jsonResponse('The subscription.', Subscription),
    ...errorResponses('VALIDATION_ERROR', 'SUBSCRIPTION_NOT_FOUND', ...bearerErrors),
  },
});

registry.registerPath({
  method: 'post',
  path: '/subscriptions/{id}/cancel',
  operationId: 'cancelSubscription',
  tags: ['Subscriptions'],
  summary: 'Cancel a subscription',
  description:
    'Role owner, admin or finance. The recurrence (and an open cycle charge) is cancelled at the PSP; the answer is the subscription, CANCELLED ' +
    '(cancelledBy MERCHANT). Already CANCELLED, REFUSED or EXPIRED → 409 SUBSCRIPTION_ALREADY_ENDED. Repeating it is safe (the second answers 409).',
  security: security.bearer,
  request: { params: idParam },
  responses: {
    200: jsonResponse('The subscription, CANCELLED.', Subscription),
    ...errorResponses(
      'VALIDATION_ERROR',
      'SUBSCRIPTION_NOT_FOUND',
      'INSUFFICIENT_ROLE',
      'SUBSCRIPTION_ALREADY_ENDED',
      'SERVICE_UNAVAILABLE',
      ...bearerErrors,
    ),
  },
});

// --- /v1/subscriptions (partners) ------------------------------------------------------------

const partnerShared = [
  'VALIDATION_ERROR',
  'CREDENTIALS_REQUIRED',
  'INVALID_CREDENTIALS',
  'MERCHANT_ID_REQUIRED',
  'INVALID_SIGNATURE',
  'INSUFFICIENT_SCOPE',
  'RATE_LIMITED',
  'NOT_FOUND',
] as const;
const partnerId = z.object({
  id: z.string().max(100).meta({
    description: 'A subscription id (UUID); another form → 422 INVALID_SUBSCRIPTION_ID.',
    example: '0b5c2c4e-5d1f-4f0e-9a57-2f3d4b1e8c11',
  }),
});

registry.registerPath({
  method: 'post',
  path: '/v1/subscriptions',
  operationId: 'createSubscriptionV1',
  tags: ['Partner subscriptions'],
  summary: 'Create a subscription (scope checkout:write)',
  description:
    'For the credential’s merchant. ' +
    requiredIdempotencyRule('Idempotency-Key') +
    'The same key and body answer the first answer again; another body → 409 DUPLICATE_IDEMPOTENCY_KEY. The request signature is verified when sent and required in production. ' +
    createRules,
  security: security.clientCredentials,
  request: {
    headers: [...requiredIdempotencyHeaders('Idempotency-Key'), ...signatureHeaders.optional],
    body: {
      required: true,
      content: {
        'application/json': { schema: registry.register('CreateSubscriptionV1Request', createPartnerSubscriptionBody) },
      },
    },
  },
  responses: {
    201: {
      description: 'The subscription, AWAITING_AUTHORISATION.',
      content: { 'application/json': { schema: envelopeOf(Subscription) } },
      links: {
        getSubscriptionV1: {
          operationId: 'getSubscriptionV1',
          parameters: { id: '$response.body#/data/id' },
          description: 'getSubscriptionV1 with `id` = `$response.body#/data/id`.',
        },
      },
    },
    ...p0Errors(...partnerShared, ...createErrors, 'PAYLOAD_TOO_LARGE'),
  },
});

registry.registerPath({
  method: 'get',
  path: '/v1/subscriptions',
  operationId: 'listSubscriptionsV1',
  tags: ['Partner subscriptions'],
  summary: 'List subscriptions, newest first (scope checkout:read)',
  description:
    'Keyset pages by (createdAt, id), newest first: pass `pagination.next` as `after` for the next page. An `after` naming no subscription of yours → 404 SUBSCRIPTION_NOT_FOUND.',
  security: security.clientCredentials,
  request: { headers: signatureHeaders.optional, query: listPartnerSubscriptionsQuery },
  responses: {
    200: {
      description: 'A page.',
      content: {
        'application/json': {
          schema: z.object({
            data: z.array(Subscription),
            success: z.literal(true),
            error: z.null(),
            pagination: subscriptionPagination,
          }),
        },
      },
    },
    ...p0Errors(...partnerShared, 'SUBSCRIPTION_NOT_FOUND'),
  },
});

registry.registerPath({
  method: 'get',
  path: '/v1/subscriptions/{id}',
  operationId: 'getSubscriptionV1',
  tags: ['Partner subscriptions'],
  summary: 'Read a subscription (scope checkout:read)',
  description:
    "One of your merchant's subscriptions, in the P0 envelope. A malformed id → 422 INVALID_SUBSCRIPTION_ID; another merchant's or an unknown one → 404 SUBSCRIPTION_NOT_FOUND.",
  security: security.clientCredentials,
  request: { headers: signatureHeaders.optional, params: partnerId },
  responses: {
    200: { description: 'The subscription.', content: { 'application/json': { schema: envelopeOf(Subscription) } } },
    ...p0Errors(...partnerShared, 'INVALID_SUBSCRIPTION_ID', 'SUBSCRIPTION_NOT_FOUND'),
  },
});

registry.registerPath({
  method: 'post',
  path: '/v1/subscriptions/{id}/cancel',
  operationId: 'cancelSubscriptionV1',
  tags: ['Partner subscriptions'],
  summary: 'Cancel a subscription (scope checkout:write)',
  description:
    'As POST /subscriptions/{id}/cancel, for the credential’s merchant, in the P0 envelope. The request signature is verified when sent and required in production.',
  security: security.clientCredentials,
  request: { headers: signatureHeaders.optional, params: partnerId },
  responses: {
    200: {
      description: 'The subscription, CANCELLED.',
      content: { 'application/json': { schema: envelopeOf(Subscription) } },
    },
    ...p0Errors(
      ...partnerShared,
      'INVALID_SUBSCRIPTION_ID',
      'SUBSCRIPTION_NOT_FOUND',
      'SUBSCRIPTION_ALREADY_ENDED',
      'SERVICE_UNAVAILABLE',
    ),
  },
});

/**
 * OpenAPI for the seller webhook routes (router.ts), from the schemas that validate them
 * (schema.ts). The response schema mirrors core/events/presentEndpoint.ts.
 */
import { z } from 'zod';
import { subscribableEventTypes } from '../../../core/events/events';
import { idempotencyHeaders, jsonResponse, Pagination, registry, webhookCallbacks } from '../../openapi/registry';
import { registerSellerPath } from '../../openapi/sellerPaths';
import { createWebhookBody, listWebhooksQuery, updateWebhookBody, webhookIdParam } from './schema';

export const webhookEndpoint = z.object({
  id: z.uuid(),
  merchantId: z.uuid(),
  url: z.string().meta({ example: 'https://loja.example/pix-events' }),
  events: z.array(z.enum(subscribableEventTypes)),
  description: z.string().nullable(),
  chargeId: z
    .uuid()
    .nullable()
    .meta({ description: 'Set when the webhook was created by `webhook_url` on a charge, and scoped to it.' }),
  active: z.boolean(),
  disabledReason: z.string().nullable(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});

/**
 * The 201 of the creation: the webhook and its secret, always sent (null on a replay). Reads
 * never carry a secret (`Webhook`), so the secret is required here rather than optional there:
 * a generated client's type then says what each answer holds.
 */
export const createdWebhookEndpoint = webhookEndpoint.extend({
  secret: z.string().nullable().meta({
    description:
      "Signing secret (`whsec_` + base64), shown in this answer only; null on an idempotent replay of the creation. The same string verifies `gateway-signature` (Stripe's constructEvent) and the Standard Webhooks `webhook-signature` (the `standardwebhooks` libraries).",
  }),
});

const Webhook = registry.register(
  'Webhook',
  webhookEndpoint.describe(
    'A webhook as reads answer it: never with its secret (shown only on creation and rotation).',
  ),
);
const CreateWebhookRequest = registry.register(
  'CreateWebhookRequest',
  createWebhookBody.openapi({ description: 'Unknown fields are refused.' }),
);
const UpdateWebhookRequest = registry.register(
  'UpdateWebhookRequest',
  updateWebhookBody.openapi({
    description: 'At least one field; unknown fields are refused. `active: false` disables.',
  }),
);
const idParams = z.object({ id: webhookIdParam.openapi({ description: 'Webhook id.' }) });
const tags = ['Seller webhooks'];
const json = (schema: z.ZodType) => ({ required: true, content: { 'application/json': { schema } } });

registerSellerPath({
  method: 'post',
  path: '/sellers/webhooks',
  operationId: 'createWebhook',
  tags,
  summary: 'Register a webhook',
  description:
    'The URL must be http(s), without credentials, and (outside development) resolve to public addresses only. The secret is shown in this answer only.',
  request: { headers: idempotencyHeaders, body: json(CreateWebhookRequest) },
  callbacks: webhookCallbacks(
    '{$request.body#/url}',
    'WebhookEvent',
    'Every event of the types in `events`, while the webhook is active.',
  ),
  responses: {
    201: jsonResponse(
      'Created, with its secret.',
      registry.register('CreatedWebhook', createdWebhookEndpoint),
      {
        'idempotent-replayed': {
          description: '`true` on a replay (the secret is then null).',
          schema: { type: 'string', enum: ['true'] },
        },
      },
      { getWebhook: { id: '$response.body#/id' }, listWebhookDeliveries: { id: '$response.body#/id' } },
    ),
  },
  errors: ['VALIDATION_ERROR', 'DUPLICATE_IDEMPOTENCY_KEY', 'PAYLOAD_TOO_LARGE'],
});

registerSellerPath({
  method: 'get',
  path: '/sellers/webhooks',
  operationId: 'listWebhooks',
  tags,
  summary: "List the merchant's webhooks (no secrets)",
  description:
    "The authenticated merchant's webhooks, active or disabled, including the charge-scoped ones created by `webhook_url`, newest first. A secret is never listed.",
  request: { query: listWebhooksQuery },
  responses: {
    200: jsonResponse(
      'A page of webhooks, newest first.',
      z.object({ webhooks: z.array(Webhook), pagination: Pagination }),
    ),
  },
  errors: ['VALIDATION_ERROR'],
});

registerSellerPath({
  method: 'get',
  path: '/sellers/webhooks/{id}',
  operationId: 'getWebhook',
  tags,
  summary: 'Read a webhook (no secret)',
  description:
    "Among the authenticated merchant's webhooks only: another merchant's or an unknown id → 404 NOT_FOUND. The secret is shown only on creation and rotation.",
  request: { params: idParams },
  responses: { 200: jsonResponse('The webhook.', Webhook) },
  errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
});

registerSellerPath({
  method: 'patch',
  path: '/sellers/webhooks/{id}',
  operationId: 'updateWebhook',
  tags,
  summary: 'Change a webhook',
  description:
    "Changes the fields sent (url, events, description, active); the URL is checked as on creation. `active: false` disables it, as DELETE does; `active: true` enables it again and replays what it missed while disabled (the subscribed events recorded since, and deliveries cancelled by the disable; at most 3 days back and 500 events), oldest first, each after the previous one's first attempt. When that replay cannot be queued (Temporal unreachable) the webhook stays disabled and the answer is 503 SERVICE_UNAVAILABLE: retry. The secret does not change (POST …/rotate-secret does).",
  request: { params: idParams, headers: idempotencyHeaders, body: json(UpdateWebhookRequest) },
  responses: { 200: jsonResponse('The webhook as changed.', Webhook) },
  errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'PAYLOAD_TOO_LARGE', 'DUPLICATE_IDEMPOTENCY_KEY', 'SERVICE_UNAVAILABLE'],
});

registerSellerPath({
  method: 'post',
  path: '/sellers/webhooks/{id}/rotate-secret',
  operationId: 'rotateWebhookSecret',
  tags,
  summary: 'Rotate the signing secret',
  description:
    'Answers the new secret once. The previous secret keeps signing deliveries until `previousSecretExpiresAt` (24 h), so receivers can switch.',
  request: { params: idParams, headers: idempotencyHeaders },
  responses: {
    200: jsonResponse(
      'The webhook with its new secret.',
      webhookEndpoint.extend({
        secret: z.string().nullable().meta({
          description:
            'The new signing secret (`whsec_…`). `null` on an idempotent replay (same Idempotency-Key): a secret is never shown twice.',
        }),
        previousSecretExpiresAt: z.iso.datetime(),
      }),
      {
        'idempotent-replayed': {
          description: '`true` on a replay (the secret is then null).',
          schema: { type: 'string', enum: ['true'] },
        },
      },
    ),
  },
  errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'DUPLICATE_IDEMPOTENCY_KEY', 'SERVICE_UNAVAILABLE'],
});

registerSellerPath({
  method: 'delete',
  path: '/sellers/webhooks/{id}',
  operationId: 'deleteWebhook',
  tags,
  summary: 'Disable a webhook',
  description: 'Disables the webhook (`active: false`); it is kept for the delivery history and never erased.',
  request: { params: idParams, headers: idempotencyHeaders },
  responses: { 200: jsonResponse('The disabled webhook.', Webhook) },
  errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'DUPLICATE_IDEMPOTENCY_KEY', 'SERVICE_UNAVAILABLE'],
});

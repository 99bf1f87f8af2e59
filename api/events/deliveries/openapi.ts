/** OpenAPI for webhook delivery history and resend (router.ts), from the schemas that validate them. */
import { z } from 'zod';
import { subscribableEventTypes } from '../../../core/events/events';
import { idempotencyHeaders, jsonResponse, Pagination, registry } from '../../openapi/registry';
import { registerSellerPath } from '../../openapi/sellerPaths';
import { deliveryStatuses, listDeliveriesQuery, uuidParam } from './schema';

const attempt = z.object({
  attempt: z.number().int(),
  url: z.string(),
  statusCode: z
    .number()
    .int()
    .nullable()
    .describe('HTTP status answered by the receiver; null when it did not answer.'),
  success: z.boolean().describe('A 2xx within 10 s.'),
  error: z.string().nullable(),
  durationMs: z.number().int(),
  attemptedAt: z.iso.datetime(),
});

export const webhookDelivery = z.object({
  id: z.uuid(),
  eventId: z.uuid().describe('Stable across attempts and resends: receivers deduplicate by it.'),
  eventType: z.enum(subscribableEventTypes),
  webhookId: z.uuid(),
  url: z.string(),
  status: z
    .enum(deliveryStatuses)
    .describe('PENDING (retrying) → SUCCEEDED | FAILED (3 days of failures) | CANCELLED (webhook disabled).'),
  attempts: z.number().int(),
  lastStatusCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  nextAttemptAt: z.iso.datetime().nullable(),
  resendOf: z.uuid().nullable(),
  createdAt: z.iso.datetime(),
  completedAt: z.iso.datetime().nullable(),
  attemptLog: z.array(attempt).optional().describe('Every attempt, on the single-delivery read.'),
});

const Delivery = registry.register('WebhookDelivery', webhookDelivery);
const QueuedDelivery = registry.register(
  'QueuedWebhookDelivery',
  webhookDelivery.extend({
    queued: z.literal(true).describe('Recorded, not started yet: the webhook dispatcher starts it.'),
    message: z.string().describe('What happens next, for a person reading the answer.'),
  }),
);
const DeliveryPage = registry.register(
  'WebhookDeliveryPage',
  z.object({ deliveries: z.array(Delivery), pagination: Pagination }),
);
const tags = ['Seller webhooks'];
/** From a delivery to its reads: the delivery itself, and every delivery of its event. */
const deliveryLinks = {
  getWebhookDelivery: { deliveryId: '$response.body#/id' },
  listEventDeliveries: { eventId: '$response.body#/eventId' },
};

registerSellerPath({
  method: 'get',
  path: '/sellers/webhooks/{id}/deliveries',
  operationId: 'listWebhookDeliveries',
  tags,
  summary: 'Deliveries to one webhook, newest first',
  description:
    'Every delivery made to this webhook of the authenticated merchant, optionally filtered by `status`, each with its attempt count and last answer; GET /sellers/webhook-deliveries/{deliveryId} shows every attempt.',
  request: { params: z.object({ id: uuidParam }), query: listDeliveriesQuery },
  responses: { 200: jsonResponse('A page of deliveries.', DeliveryPage) },
  errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
});

registerSellerPath({
  method: 'get',
  path: '/sellers/events/{eventId}/deliveries',
  operationId: 'listEventDeliveries',
  tags,
  summary: 'Deliveries of one event (to every webhook it went to)',
  description:
    'The `eventId` is the one in the delivered body and the `gateway-event-id` header; its deliveries to every webhook of the authenticated merchant that received it, resends included. An event of another merchant → 404 NOT_FOUND.',
  request: { params: z.object({ eventId: uuidParam }), query: listDeliveriesQuery },
  responses: { 200: jsonResponse('A page of deliveries.', DeliveryPage) },
  errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
});

registerSellerPath({
  method: 'get',
  path: '/sellers/webhook-deliveries/{deliveryId}',
  operationId: 'getWebhookDelivery',
  tags,
  summary: 'One delivery with every attempt',
  description:
    "A delivery of the authenticated merchant with `attemptLog`: each attempt's URL, answer status, error, duration and time.",
  request: { params: z.object({ deliveryId: uuidParam }) },
  responses: { 200: jsonResponse('The delivery and its attempt log.', Delivery) },
  errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
});

registerSellerPath({
  method: 'post',
  path: '/sellers/webhook-deliveries/{deliveryId}/resend',
  operationId: 'resendWebhookDelivery',
  tags,
  summary: 'Send the event again (a new delivery, same eventId and body)',
  description:
    '201: the new delivery, PENDING, its WebhookDelivery workflow started. 202: the new delivery is recorded (PENDING, `queued: true`) but its workflow could not be started ' +
    '(the workflow service did not answer); the webhook dispatcher starts it within seconds once the service answers, so do not resend: follow it with GET /sellers/webhook-deliveries/{deliveryId}. ' +
    'With an idempotency key, a retry answers the first answer again.',
  request: { params: z.object({ deliveryId: uuidParam }), headers: idempotencyHeaders },
  responses: {
    201: jsonResponse('The new delivery, PENDING, being sent.', Delivery, {}, deliveryLinks),
    202: jsonResponse(
      'The new delivery, PENDING, recorded and queued for the webhook dispatcher.',
      QueuedDelivery,
      {},
      deliveryLinks,
    ),
  },
  errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'WEBHOOK_DISABLED', 'DUPLICATE_IDEMPOTENCY_KEY', 'SERVICE_UNAVAILABLE'],
});

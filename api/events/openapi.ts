/**
 * The events the gateway sends, as OpenAPI 3.1 `webhooks`: one entry per event type, the payload
 * `{eventId, type, createdAt, data}` with an example, and the headers each delivery carries.
 */
import { z } from 'zod';
import { subscribableEventTypes } from '../../core/events/events';
import { registry } from '../openapi/registry';

const headers = z.object({
  'gateway-signature': z.string().meta({
    description:
      '`t=<unix seconds>,v1=<hex>`: HMAC-SHA256 of `"<t>.<raw body>"` keyed with the webhook secret, lower-case hex. During a secret rotation a second `v1` signed with the previous secret follows. Accept if any v1 matches and |now − t| ≤ 300 s.',
    example: 't=1795327200,v1=5f1c0e2a9b…',
  }),
  'gateway-event-id': z.uuid().meta({ description: 'Same as `eventId`; deduplicate by it.' }),
  'gateway-delivery-id': z.uuid().meta({ description: 'This delivery (a resend has a new one).' }),
  'gateway-delivery-attempt': z.string().meta({ description: 'Attempt number, from 1.', example: '1' }),
});

const examples: Record<string, unknown> = {
  'charge.paid': {
    id: '0b5c2c4e-5d1f-4f0e-9a57-2f3d4b1e8c11',
    status: 'PAID',
    amountCents: 12345,
    externalRef: 'order-1001',
    endToEndId: 'E9999999920261122052512345678901',
    paidAt: '2026-11-22T05:25:21.954Z',
  },
  'charge.refunded': {
    chargeId: '0b5c2c4e-5d1f-4f0e-9a57-2f3d4b1e8c11',
    refundId: '4f0e9a57-…',
    amountCents: 2000,
    refundedAmountCents: 5000,
    remainingAmountCents: 7345,
    reason: 'produto devolvido',
    endToEndId: 'D9999999920261123190512345678901',
    refundedAt: '2026-11-23T19:05:12.000Z',
  },
  'withdrawal.completed': {
    id: 'f3a1…',
    status: 'COMPLETED',
    amountCents: 50000,
    feeCents: 0,
    provider: 'PIX_GATEWAY',
  },
  'payout.item.paid': { id: '8e2d…', batchId: '5b7a…', status: 'PAID', amountCents: 1000, referenceId: 'ref-0' },
  'payout.batch.completed': {
    id: '5b7a…',
    status: 'COMPLETED',
    paidItems: 25,
    failedItems: 0,
    cancelledItems: 0,
    releasedAmountCents: 0,
  },
};

for (const type of subscribableEventTypes) {
  const resource = type.split('.')[0];
  const payload = z
    .object({
      eventId: z.uuid().describe('Stable across retries and resends.'),
      type: z.literal(type),
      createdAt: z.iso.datetime(),
      data: z
        .record(z.string(), z.unknown())
        .describe(
          type === 'charge.refunded'
            ? 'The refund: chargeId, refundId, amountCents, refundedAmountCents (all SUCCEEDED refunds of the charge), remainingAmountCents, reason, endToEndId, refundedAt.'
            : resource === 'charge'
              ? 'The charge as GET /sellers/pix/{id} shows it.'
              : resource === 'withdrawal'
                ? 'The withdrawal as GET /sellers/saques/{id} shows it.'
                : resource === 'med'
                  ? 'The Pix infraction (MED) as GET /med/infractions/{id} shows it.'
                  : resource === 'checkout'
                    ? 'The checkout: the P0 public object as GET /v1/checkouts/{id} shows it (a checkout session: the session as GET /checkout/sessions/{id} shows it).'
                    : 'The payout batch or item.',
        ),
    })
    .meta({
      example: {
        eventId: '7d9f3a52-2c11-4a8e-b0f4-1b2c3d4e5f60',
        type,
        createdAt: '2026-11-22T05:25:22.093Z',
        data: examples[type] ?? { id: '…', status: '…' },
      },
    });
  registry.registerWebhook({
    method: 'post',
    path: type,
    operationId: `event_${type.replace(/\./g, '_')}`,
    tags: ['Webhook events'],
    summary: `${type} delivered to your webhook URL`,
    description:
      'POSTed as JSON to every active webhook subscribed to this type (and to the charge-scoped webhook of `webhook_url`). Answer 2xx within 10 s, only after processing; ' +
      'otherwise it is retried 10 s, 20 s, 40 s … (doubling, at most 6 h apart) for 3 days (23 attempts), then the delivery is FAILED.',
    request: { headers, body: { required: true, content: { 'application/json': { schema: payload } } } },
    responses: { 200: { description: 'Received and processed (any 2xx).' } },
  });
}

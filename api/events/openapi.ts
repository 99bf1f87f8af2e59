/**
 * The events the gateway sends, as OpenAPI 3.1 `webhooks`: one entry per event type, each with
 * its own payload schema `{eventId, type, createdAt, data}` where `data` is the schema of what the
 * event carries (the same presenter as the API's read of that resource, or the event's own
 * object), and the headers each delivery carries. `WebhookEvent` is the union of them all,
 * discriminated by `type`: what one receiver endpoint accepts, so a generated type narrows on
 * `type` with no cast. The webhook registrations (POST /sellers/webhooks, `webhook_url` of
 * POST /sellers/pix) point at it as their callbacks.
 *
 * Where each `data` is built: charge.created/paid/expired/cancelled presentSellerCharge, through
 * presentChargeRow (db/charges/sellerChargeView.ts, as GET /sellers/pix/{id}; charge.paid of a
 * Pix from what settling's one statement read, activities/charges/settle.ts); charge.refunded refundedEvent
 * (activities/refunds/settle.ts); withdrawal.* presentWithdrawalRows (db/withdrawals/withdrawalView.ts,
 * as GET /sellers/saques/{id}); payout.* activities/payouts/settleItems.ts and finish.ts; checkout.*
 * core/checkouts/present.ts (P0 object, or the session); med.* presentInfraction (db/med/medInfractions.ts,
 * as GET /med/infractions/{id}); subscription.* presentSubscription (core/subscriptions/view.ts, as
 * GET /subscriptions/{id}).
 */
import { z } from 'zod';
import {
  chargeEventTypes,
  checkoutEventTypes,
  medEventTypes,
  subscribableEventTypes,
  subscriptionEventTypes,
  type SubscribableEventType,
} from '../../core/events/events';
import { registry, webhookReceiverResponses } from '../openapi/registry';
import { SellerPixCharge } from '../charges/sellers/openapi';
import { WithdrawalSchema } from '../withdrawals/openapi';
import { P0Checkout } from '../checkouts/partner/openapi';
import { CheckoutSession } from '../checkouts/sessions/openapi';
import { Infraction } from '../med/openapi';
import { infractionView } from '../med/schema';
import { Subscription } from '../subscriptions/openapi';

// The headers of every delivery, as parameter components: the `webhooks` below and the callbacks
// of the webhook registrations (registry.ts, webhookCallbacks) both point at them.
const deliveryHeader = (component: string, name: string, schema: z.ZodType) =>
  registry.registerParameter(component, schema.openapi({ param: { name, in: 'header', required: true } }));
export const deliveryHeaders = [
  deliveryHeader(
    'DeliverySignature',
    'gateway-signature',
    z.string().meta({
      description:
        '`t=<unix seconds>,v1=<hex>`: HMAC-SHA256 of `"<t>.<raw body>"` keyed with the webhook secret, lower-case hex. During a secret rotation a second `v1` signed with the previous secret follows. ' +
        'Accept if any v1 matches and |now − t| ≤ 300 s. The same scheme as Stripe’s (its `constructEvent` verifies it); not Standard Webhooks.',
      example: 't=1795327200,v1=5f1c0e2a9b…',
    }),
  ),
  deliveryHeader(
    'DeliveryEventId',
    'gateway-event-id',
    z.uuid().meta({ description: 'Same as `eventId`; deduplicate by it.' }),
  ),
  deliveryHeader(
    'DeliveryId',
    'gateway-delivery-id',
    z.uuid().meta({ description: 'This delivery (a resend has a new one).' }),
  ),
  deliveryHeader(
    'DeliveryAttempt',
    'gateway-delivery-attempt',
    z
      .string()
      .regex(/^[1-9]\d*$/)
      .meta({ description: 'Attempt number, from 1.', example: '1' }),
  ),
];

const ChargeRefund = registry.register(
  'ChargeRefundedData',
  z
    .object({
      chargeId: z.uuid(),
      refundId: z.uuid(),
      amountCents: z.number().int().meta({ description: 'This refund.', example: 2000 }),
      refundedAmountCents: z
        .number()
        .int()
        .meta({ description: 'All SUCCEEDED refunds of the charge, this one included.', example: 5000 }),
      remainingAmountCents: z.number().int().meta({ description: 'What can still be refunded.', example: 7345 }),
      reason: z.string().meta({ example: 'produto devolvido' }),
      endToEndId: z.string().nullable().meta({ description: 'Of the devolução.' }),
      refundedAt: z.iso.datetime().nullable(),
    })
    .describe('A refund of the charge succeeded (activities/refunds/settle.ts, refundedEvent).'),
);

const payoutItemData = (status: 'PAID' | 'FAILED') =>
  z
    .object({
      id: z.uuid().meta({ description: 'The payout item (GET /v1/payouts/batches/{batchId}/items).' }),
      batchId: z.uuid(),
      status: z.literal(status),
      amountCents: z.number().int(),
      referenceId: z.string().nullable().meta({ description: 'The `referenceId` the item was created with.' }),
    })
    .describe(`A payout item became ${status}.`);
const PayoutItemPaid = registry.register('PayoutItemPaidData', payoutItemData('PAID'));
const PayoutItemFailed = registry.register('PayoutItemFailedData', payoutItemData('FAILED'));

const PayoutBatchCompleted = registry.register(
  'PayoutBatchCompletedData',
  z
    .object({
      id: z.uuid().meta({ description: 'The batch (GET /v1/payouts/batches/{batchId}).' }),
      status: z.enum(['COMPLETED', 'COMPLETED_WITH_FAILURES', 'FAILED', 'CANCELLED']),
      paidItems: z.number().int(),
      failedItems: z.number().int(),
      cancelledItems: z.number().int(),
      releasedAmountCents: z
        .number()
        .int()
        .meta({ description: 'Funding of failed and cancelled items returned to the available balance.' }),
    })
    .describe('Every item of the batch is final.'),
);

const CheckoutData = registry.register(
  'CheckoutEventData',
  z.union([P0Checkout, CheckoutSession]).meta({
    description:
      'A P0 checkout (POST /v1/checkouts: `id` is `bill_<uuid>`, and it has `frequency`) as GET /v1/checkouts/{id} shows it, ' +
      'or a checkout session (POST /checkout/sessions: it has `chargeId`) as GET /checkout/sessions/{id} shows it.',
  }),
);

const InfractionDeadlineApproaching = registry.register(
  'MedInfractionDeadlineApproachingData',
  z
    .object({
      ...infractionView.shape,
      hoursLeft: z.union([z.literal(48), z.literal(24), z.literal(6)]).meta({
        description:
          'Which alert this is: 48, 24 or 6 hours before deadlineAt (the PSP’s deadline). A case read with less time left gets only the nearest alert, at once.',
      }),
    })
    .describe('The infraction as GET /med/infractions/{id} shows it, and which alert before its deadline this is.'),
);

function dataOf(type: SubscribableEventType): z.ZodType {
  if (type === 'charge.refunded') return ChargeRefund;
  if ((chargeEventTypes as readonly string[]).includes(type)) return SellerPixCharge;
  if (type.startsWith('withdrawal.')) return WithdrawalSchema;
  if (type === 'payout.item.paid') return PayoutItemPaid;
  if (type === 'payout.item.failed') return PayoutItemFailed;
  if (type === 'payout.batch.completed') return PayoutBatchCompleted;
  if ((checkoutEventTypes as readonly string[]).includes(type)) return CheckoutData;
  if (type === 'med.infraction.deadline_approaching') return InfractionDeadlineApproaching;
  if ((medEventTypes as readonly string[]).includes(type)) return Infraction;
  if ((subscriptionEventTypes as readonly string[]).includes(type)) return Subscription;
  throw new Error(`api/events/openapi.ts: no payload schema for event type ${type}`);
}

/** What `data` is, said on the event (a description on `data` itself would rename the shared component's). */
const DATA_DESCRIPTION: Record<string, string> = {
  charge: '`data` is the charge as GET /sellers/pix/{id} shows it (`webhook.secret` is always null).',
  withdrawal: '`data` is the withdrawal as GET /sellers/saques/{id} shows it.',
  'payout.item': '`data` is the payout item (the fields that matter to a receiver).',
  'payout.batch': '`data` is the outcome of the payout batch.',
  checkout: '`data` is the checkout: the P0 object or the checkout session.',
  med: '`data` is the Pix infraction (MED) as GET /med/infractions/{id} shows it.',
  subscription:
    '`data` is the subscription as GET /subscriptions/{id} shows it (a refused or expired authorisation is `subscription.cancelled` with status REFUSED or EXPIRED).',
};

/** `charge.paid` → `ChargePaidEvent`, `med.infraction.deadline_approaching` → `MedInfractionDeadlineApproachingEvent`. */
export const eventSchemaName = (type: string) =>
  `${type
    .split(/[._]/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('')}Event`;

const eventSchemas = subscribableEventTypes.map((type) =>
  registry.register(
    eventSchemaName(type),
    z
      .object({
        eventId: z.uuid().meta({
          description: 'Stable across retries and resends; deduplicate by it.',
          example: '7d9f3a52-2c11-4a8e-b0f4-1b2c3d4e5f60',
        }),
        type: z.literal(type),
        createdAt: z.iso.datetime().meta({
          description: 'When the event was recorded (the change it reports and the event commit together).',
          example: '2026-11-22T05:25:22.093Z',
        }),
        data: dataOf(type),
      })
      .describe(
        `The body of a \`${type}\` delivery. ` +
          (type === 'charge.refunded'
            ? '`data` is the refund.'
            : (DATA_DESCRIPTION[type.split('.').slice(0, 2).join('.')] ?? DATA_DESCRIPTION[type.split('.')[0]])),
      ),
  ),
);

/** Each event type's body schema (zod): what test/support/webhookEvents.ts checks recorded events against. */
export const webhookEventSchemas = Object.fromEntries(
  subscribableEventTypes.map((type, i) => [type, eventSchemas[i]]),
) as Record<SubscribableEventType, (typeof eventSchemas)[number]>;

const unionOf = (types: readonly SubscribableEventType[]) =>
  z.discriminatedUnion(
    'type',
    types.map((t) => eventSchemas[subscribableEventTypes.indexOf(t)]) as unknown as [z.ZodObject, ...z.ZodObject[]],
  );

/** Any event a webhook receives: one schema per `type` (oneOf with a discriminator mapping). */
registry.register(
  'WebhookEvent',
  unionOf(subscribableEventTypes).meta({
    description: 'The body of any delivery: switch on `type`, and `data` has that event’s schema.',
  }),
);
/** What the charge-scoped webhook of `webhook_url` (POST /sellers/pix) receives. */
registry.register(
  'ChargeWebhookEvent',
  unionOf(chargeEventTypes).meta({
    description: 'The body of a delivery to a charge-scoped webhook: the charge events of that charge.',
  }),
);

for (const [i, type] of subscribableEventTypes.entries()) {
  registry.registerWebhook({
    method: 'post',
    path: type,
    operationId: `event_${type.replace(/\./g, '_')}`,
    tags: ['Webhook events'],
    summary: `${type} delivered to your webhook URL`,
    description:
      'POSTed as JSON to every active webhook subscribed to this type (and, for charge events, to the charge-scoped webhook of `webhook_url`). Answer 2xx within 10 s, only after processing; ' +
      'otherwise it is retried 10 s, 20 s, 40 s … (doubling, at most 6 h apart) for 3 days (23 attempts), then the delivery is FAILED. ' +
      'Sent by the gateway, not called by you: no credentials; verify `gateway-signature` against your webhook secret before trusting the body.',
    security: [],
    request: {
      headers: deliveryHeaders,
      body: { required: true, content: { 'application/json': { schema: eventSchemas[i] } } },
    },
    responses: webhookReceiverResponses,
  });
}

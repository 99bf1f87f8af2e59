/**
 * One of everything a merchant can own, made through the API the way a merchant does: a webhook,
 * a paid charge (so an event and a delivery), a withdrawal and a payout batch, all settled.
 * The stack needs its outbox dispatcher (webhookDispatcher: true) and the merchant payouts
 * enabled, a Pix key of its own and a document (for withdrawals).
 */
import crypto from 'node:crypto';
import type { MerchantCredentials } from '../../db/identity/merchantAdmin';
import { waitFor } from './env';
import type { StackClient } from './integrationStack';
import { items, signedCall, waitForBatchEnd } from './payouts';
import { checkoutBody, idemKey, sellableCourse } from './checkouts';
import { insertSubscription } from './subscriptions';

export interface OwnedResources {
  chargeId: string;
  withdrawalId: string;
  webhookId: string;
  deliveryId: string;
  eventId: string;
  batchId: string;
  payoutItemId: string;
  /** A partner P0 checkout (`bill_<uuid>`). */
  checkoutId: string;
  /** A subscription (a row as its workflow records it: test/support/subscriptions.ts). */
  subscriptionId: string;
}

/**
 * Which resource fills a path parameter, by `<segment before it>/{<name>}` (`/sellers/pix/{id}`
 * → a charge). Generated tests (tenant isolation, schema fuzzing) fill every mounted route from
 * this table; a route with a parameter missing here fails them until a rule is added.
 */
export const ID_RULES: Record<string, keyof OwnedResources> = {
  'pix/{id}': 'chargeId',
  'saques/{id}': 'withdrawalId',
  'webhooks/{id}': 'webhookId',
  'webhook-deliveries/{deliveryId}': 'deliveryId',
  'events/{eventId}': 'eventId',
  'batches/{batchId}': 'batchId',
  // /v1/receipts/*: a transaction (charge) by any of its ids, a withdrawal, a payout item.
  'transactions/{id}': 'chargeId',
  'charges/{id}': 'chargeId',
  'withdrawals/{id}': 'withdrawalId',
  'payout-items/{id}': 'payoutItemId',
  'checkouts/{id}': 'checkoutId',
  'subscriptions/{id}': 'subscriptionId',
};

function expectStatus(what: string, res: { status: number; body: unknown }, status: number): void {
  if (res.status !== status)
    throw new Error(`${what}: expected ${status}, got ${res.status} ${JSON.stringify(res.body)}`);
}

export async function createOwnedResources(
  stack: StackClient,
  creds: MerchantCredentials,
  receiverUrl: string,
): Promise<OwnedResources> {
  const webhook = await stack.api('POST', '/sellers/webhooks', {
    creds,
    body: { url: `${receiverUrl}/owned`, events: ['charge.paid'] },
  });
  expectStatus('webhook', webhook, 201);
  const charge = await stack.api('POST', '/sellers/pix', { creds, body: { amountCents: 100_000 } });
  expectStatus('charge', charge, 201);
  await stack.pay(charge.body.id);
  await waitFor(
    async () => (await stack.api('GET', `/sellers/pix/${charge.body.id}`, { creds })).body.status === 'PAID',
    'charge paid',
  );
  const delivery = await waitFor(async () => {
    const list = await stack.api('GET', `/sellers/webhooks/${webhook.body.id}/deliveries`, { creds });
    return list.body.deliveries?.find((d: { status: string }) => d.status === 'SUCCEEDED') as
      { id: string; eventId: string } | undefined;
  }, 'delivery to succeed');
  const withdrawal = await stack.api('POST', '/sellers/saques', {
    creds,
    body: { amountCents: 1_000 },
    headers: { 'idempotency-key': crypto.randomUUID() },
  });
  expectStatus('withdrawal', withdrawal, 201);
  const batch = await signedCall(stack, creds, 'POST', '/v1/payouts/batches', {
    idempotencyKey: crypto.randomUUID(),
    items: items(1),
  });
  expectStatus('payout batch', batch, 201);
  const ended = (await waitForBatchEnd(stack, creds, batch.body.batchId)) as { items: { id: string }[] };
  await waitFor(
    async () =>
      (await stack.api('GET', `/sellers/saques/${withdrawal.body.id}`, { creds })).body.status !== 'PROCESSING',
    'withdrawal to settle',
  );
  const { priceId } = await sellableCourse(stack.sequelize, creds.merchantId);
  const checkout = await stack.api('POST', '/v1/checkouts', {
    creds,
    body: checkoutBody([{ id: priceId, quantity: 1 }]),
    headers: idemKey(),
  });
  expectStatus('checkout', checkout, 201);
  const subscription = await insertSubscription(stack.sequelize, creds.merchantId);
  return {
    chargeId: charge.body.id,
    withdrawalId: withdrawal.body.id,
    webhookId: webhook.body.id,
    deliveryId: delivery.id,
    eventId: delivery.eventId,
    batchId: batch.body.batchId,
    payoutItemId: ended.items[0].id,
    checkoutId: checkout.body.data.id,
    subscriptionId: subscription.id,
  };
}

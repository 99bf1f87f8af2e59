/**
 * Webhooks end to end: a paid charge reaches real local receivers through the outbox, the
 * dispatcher and WebhookDelivery workflows; signatures are verified here with plain Node crypto,
 * independently of the gateway's code, and with Stripe's own `constructEvent` (the library many
 * receivers already run: our header carries the same `t=…,v1=…` scheme), and with the Standard
 * Webhooks reference library (`standardwebhooks`: the `webhook-*` headers), one secret for both.
 */
import crypto from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { QueryTypes } from 'sequelize';
import Stripe from 'stripe';
import { Webhook } from 'standardwebhooks';
import type { MerchantCredentials } from '../../db/identity/merchantAdmin';
import { testEnv, waitFor } from '../support/env';
import { stackApi, startIntegrationStack, type IntegrationStack } from '../support/integrationStack';
import { assertLedgerInvariant } from '../support/ledger';
import { startReceiver, type Received, type Receiver } from '../support/receiver';

jest.setTimeout(120_000);

let stack: IntegrationStack;
let receiver: Receiver;
let seller: MerchantCredentials;

beforeAll(async () => {
  stack = await startIntegrationStack({ webhookDispatcher: true });
  receiver = await startReceiver();
  seller = await stack.createMerchant({ name: 'Loja Eventos' });
});

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
});

afterEach(async () => {
  await assertLedgerInvariant(stack.sequelize);
});

// No request is ever made: constructEvent only checks the signature and parses the body.
const stripe = new Stripe('sk_test_offline');

/** Stripe's verifier, fed our header as if it were `stripe-signature`: throws when the signature does not verify. */
function stripeVerified(r: Received, secret: string): { type: string } {
  return stripe.webhooks.constructEvent(r.rawBody, String(r.headers['gateway-signature'] ?? ''), secret) as {
    type: string;
  };
}

/** The Standard Webhooks reference verifier, fed the headers as they arrived: throws when no signature verifies. */
function standardVerified(r: Received, secret: string): { type: string } {
  return new Webhook(secret).verify(r.rawBody, r.headers as Record<string, string>) as { type: string };
}

/** What a merchant's own code does: split the header, HMAC `${t}.${body}`, compare in constant time. */
function independentlyVerified(r: Received, secret: string): boolean {
  const header = String(r.headers['gateway-signature'] ?? '');
  const fields = header.split(',').map((kv) => kv.split('='));
  const t = fields.find(([k]) => k === 't')?.[1];
  if (!t || Math.abs(Date.now() / 1000 - Number(t)) > 300) return false;
  const expected = crypto.createHmac('sha256', secret).update(`${t}.${r.rawBody}`).digest('hex');
  return fields
    .filter(([k]) => k === 'v1')
    .some(([, v]) => v.length === expected.length && crypto.timingSafeEqual(Buffer.from(v), Buffer.from(expected)));
}

async function register(path: string, events: string[]) {
  const res = await stack.api('POST', '/sellers/webhooks', {
    creds: seller,
    body: { url: `${receiver.url}${path}`, events },
  });
  expect(res.status).toBe(201);
  return res.body as { id: string; secret: string };
}

async function paidCharge(extra: Record<string, unknown> = {}) {
  const created = await stack.api('POST', '/sellers/pix', { creds: seller, body: { amountCents: 2_000, ...extra } });
  expect(created.status).toBe(201);
  await stack.pay(created.body.id);
  return created.body as { id: string; webhook?: { id: string; secret: string } };
}

const at = (path: string, type?: string, chargeId?: string) =>
  receiver.received.filter(
    (r) =>
      r.path === path &&
      (!type || JSON.parse(r.rawBody).type === type) &&
      (!chargeId || JSON.parse(r.rawBody).data.id === chargeId),
  );

it('delivers charge.paid to every subscribed webhook, signed, and nothing to an unsubscribed one', async () => {
  const a = await register('/a', ['charge.paid']);
  const b = await register('/b', ['charge.paid', 'charge.cancelled']);
  await register('/c', ['charge.expired']);
  const charge = await paidCharge();
  await waitFor(
    async () => at('/a', 'charge.paid', charge.id).length === 1 && at('/b', 'charge.paid', charge.id).length === 1,
    'both webhooks to receive charge.paid',
  );

  const [toA] = at('/a', 'charge.paid', charge.id);
  const [toB] = at('/b', 'charge.paid', charge.id);
  expect(independentlyVerified(toA, a.secret)).toBe(true);
  expect(independentlyVerified(toB, b.secret)).toBe(true);
  expect(independentlyVerified(toA, b.secret)).toBe(false);
  // The same secret, as shown, verifies with both libraries.
  expect(stripeVerified(toA, a.secret)).toMatchObject({ type: 'charge.paid' });
  expect(standardVerified(toA, a.secret)).toMatchObject({ type: 'charge.paid' });
  expect(() => standardVerified(toA, b.secret)).toThrow();
  const event = JSON.parse(toA.rawBody);
  expect(event).toMatchObject({
    eventId: expect.any(String),
    type: 'charge.paid',
    createdAt: expect.any(String),
    data: { id: charge.id, status: 'PAID' },
  });
  expect(toA.headers['gateway-event-id']).toBe(event.eventId);
  expect(toB.headers['gateway-event-id']).toBe(event.eventId);
  // Standard Webhooks: the message id is the event id, and the timestamp is gateway-signature's t.
  expect(toA.headers['webhook-id']).toBe(event.eventId);
  expect(String(toA.headers['gateway-signature'])).toMatch(
    new RegExp(`^t=${String(toA.headers['webhook-timestamp'])},`),
  );
  expect(toA.headers['gateway-delivery-attempt']).toBe('1');
  expect(toA.headers['content-type']).toBe('application/json');
  // Not subscribed: /a and /b never get charge.created; /c gets nothing.
  expect(at('/a', 'charge.created')).toEqual([]);
  expect(at('/c')).toEqual([]);

  const deliveries = await stack.api('GET', `/sellers/events/${event.eventId}/deliveries`, { creds: seller });
  expect(deliveries.body.deliveries.map((d: { webhookId: string }) => d.webhookId).sort()).toEqual([a.id, b.id].sort());
  await waitFor(async () => {
    const list = await stack.api('GET', `/sellers/webhooks/${a.id}/deliveries`, { creds: seller });
    return list.body.deliveries[0]?.status === 'SUCCEEDED';
  }, 'delivery recorded as SUCCEEDED');
  const list = await stack.api('GET', `/sellers/webhooks/${a.id}/deliveries`, { creds: seller });
  const detail = await stack.api('GET', `/sellers/webhook-deliveries/${list.body.deliveries[0].id}`, { creds: seller });
  expect(detail.body).toMatchObject({
    eventId: event.eventId,
    eventType: 'charge.paid',
    status: 'SUCCEEDED',
    attempts: 1,
    lastStatusCode: 200,
  });
  expect(detail.body.attemptLog).toEqual([
    expect.objectContaining({ attempt: 1, statusCode: 200, success: true, durationMs: expect.any(Number) }),
  ]);
});

it('resends a delivery: a new delivery with the same eventId', async () => {
  const hook = await register('/resend', ['charge.paid']);
  const charge = await paidCharge();
  await waitFor(async () => at('/resend', 'charge.paid', charge.id).length === 1, 'first delivery');
  const list = await stack.api('GET', `/sellers/webhooks/${hook.id}/deliveries`, { creds: seller });
  const original = list.body.deliveries[0];
  const resent = await stack.api('POST', `/sellers/webhook-deliveries/${original.id}/resend`, { creds: seller });
  expect(resent.status).toBe(201);
  expect(resent.body).toMatchObject({ eventId: original.eventId, resendOf: original.id, status: 'PENDING' });
  await waitFor(async () => at('/resend', 'charge.paid', charge.id).length === 2, 'resent delivery');
  const [first, second] = at('/resend', 'charge.paid', charge.id);
  expect(second.headers['gateway-event-id']).toBe(first.headers['gateway-event-id']);
  expect(second.headers['gateway-delivery-id']).toBe(resent.body.id);
  expect(second.rawBody).toBe(first.rawBody);

  // With an idempotency key, a retried resend makes one new delivery, not two.
  const idem = { 'idempotency-key': `resend-${crypto.randomUUID()}` };
  const once = await stack.api('POST', `/sellers/webhook-deliveries/${original.id}/resend`, {
    creds: seller,
    headers: idem,
  });
  const twice = await stack.api('POST', `/sellers/webhook-deliveries/${original.id}/resend`, {
    creds: seller,
    headers: idem,
  });
  expect(twice.body.id).toBe(once.body.id);
  expect(twice.headers.get('idempotent-replayed')).toBe('true');

  const other = await stack.createMerchant({ name: 'Outra' });
  expect((await stack.api('GET', `/sellers/webhook-deliveries/${original.id}`, { creds: other })).status).toBe(404);
  expect((await stack.api('POST', `/sellers/webhook-deliveries/${original.id}/resend`, { creds: other })).status).toBe(
    404,
  );
  expect((await stack.api('GET', `/sellers/webhooks/${hook.id}/deliveries`, { creds: other })).status).toBe(404);
});

it('a resend whose workflow cannot be started answers 202 queued, and the dispatcher sends it', async () => {
  const hook = await register('/resend-queued', ['charge.paid']);
  const charge = await paidCharge();
  await waitFor(async () => at('/resend-queued', 'charge.paid', charge.id).length === 1, 'first delivery');
  const original = (await stack.api('GET', `/sellers/webhooks/${hook.id}/deliveries`, { creds: seller })).body
    .deliveries[0];
  // An API instance whose Temporal connection is closed: every workflow start it makes fails.
  const connection = await Connection.connect({ address: testEnv().temporalAddress });
  await connection.close();
  const offline = await stack.extraApi({ temporal: new Client({ connection }) });
  try {
    const resend = async (key: string) => {
      const res = await fetch(`${offline.url}/sellers/webhook-deliveries/${original.id}/resend`, {
        method: 'POST',
        headers: { 'x-client-id': seller.clientId, 'x-client-secret': seller.clientSecret, 'idempotency-key': key },
      });
      return { status: res.status, replayed: res.headers.get('idempotent-replayed'), body: (await res.json()) as any };
    };
    const key = `resend-${crypto.randomUUID()}`;
    const queued = await resend(key);
    expect(queued).toMatchObject({
      status: 202,
      body: {
        eventId: original.eventId,
        resendOf: original.id,
        status: 'PENDING',
        attempts: 0,
        queued: true,
        message: expect.stringContaining('dispatcher'),
      },
    });
    // A retry of the request is the same queued delivery, not a second one.
    expect(await resend(key)).toMatchObject({
      status: 202,
      replayed: 'true',
      body: { id: queued.body.id, queued: true },
    });

    // The dispatcher's sweep starts the row's workflow: the receiver gets the same event again, once.
    await waitFor(
      async () => at('/resend-queued', 'charge.paid', charge.id).length === 2,
      'the queued resend delivered by the dispatcher',
    );
    const [first, second] = at('/resend-queued', 'charge.paid', charge.id);
    expect(second.headers['gateway-delivery-id']).toBe(queued.body.id);
    expect(second.rawBody).toBe(first.rawBody);
    await waitFor(
      async () =>
        (await stack.api('GET', `/sellers/webhook-deliveries/${queued.body.id}`, { creds: seller })).body.status ===
        'SUCCEEDED',
      'the resend SUCCEEDED',
    );
    const [row] = await stack.sequelize.query<{ workflow_started: boolean }>(
      'SELECT workflow_started FROM webhook_deliveries WHERE id = :id',
      {
        replacements: { id: queued.body.id },
        type: QueryTypes.SELECT,
      },
    );
    expect(row.workflow_started).toBe(true);
    const all = await stack.api('GET', `/sellers/events/${original.eventId}/deliveries`, { creds: seller });
    expect(all.body.deliveries.filter((d: { resendOf: string | null }) => d.resendOf === original.id)).toHaveLength(1);
  } finally {
    await offline.close();
  }
});

it('signs with both secrets after a rotation, and each verifies', async () => {
  const hook = await register('/rotated', ['charge.paid']);
  const rotated = await stack.api('POST', `/sellers/webhooks/${hook.id}/rotate-secret`, { creds: seller });
  const charge = await paidCharge();
  await waitFor(async () => at('/rotated', 'charge.paid', charge.id).length === 1, 'delivery after rotation');
  const [r] = at('/rotated', 'charge.paid', charge.id);
  expect(String(r.headers['gateway-signature']).match(/v1=/g)).toHaveLength(2);
  expect(independentlyVerified(r, rotated.body.secret)).toBe(true);
  expect(independentlyVerified(r, hook.secret)).toBe(true);
  expect(stripeVerified(r, rotated.body.secret)).toMatchObject({ type: 'charge.paid' });
  expect(stripeVerified(r, hook.secret)).toMatchObject({ type: 'charge.paid' });
  expect(() => stripeVerified(r, 'whsec_not_the_secret')).toThrow();
  expect(String(r.headers['webhook-signature']).split(' ')).toHaveLength(2);
  expect(standardVerified(r, rotated.body.secret)).toMatchObject({ type: 'charge.paid' });
  expect(standardVerified(r, hook.secret)).toMatchObject({ type: 'charge.paid' });
  expect(() => standardVerified(r, `whsec_${crypto.randomBytes(32).toString('base64')}`)).toThrow();
});

it('delivers the lifecycle of a charge to its webhook_url, and nothing to a disabled webhook', async () => {
  const disabled = await register('/disabled', ['charge.paid']);
  await stack.api('DELETE', `/sellers/webhooks/${disabled.id}`, { creds: seller });
  const charge = await paidCharge({ webhook_url: `${receiver.url}/scoped` });
  await waitFor(
    async () =>
      at('/scoped', 'charge.paid', charge.id).length === 1 && at('/scoped', 'charge.created', charge.id).length === 1,
    'charge-scoped events',
  );
  const [paid] = at('/scoped', 'charge.paid', charge.id);
  expect(independentlyVerified(paid, charge.webhook!.secret)).toBe(true);
  expect(stripeVerified(paid, charge.webhook!.secret)).toMatchObject({ type: 'charge.paid' });
  expect(standardVerified(paid, charge.webhook!.secret)).toMatchObject({ type: 'charge.paid' });
  await new Promise((r) => setTimeout(r, 1_000));
  expect(at('/disabled', undefined, charge.id)).toEqual([]);
});

it('replays what a webhook missed while disabled when it is re-enabled, oldest first', async () => {
  const hook = await register('/re-enabled', ['charge.paid']);
  expect(
    (await stack.api('PATCH', `/sellers/webhooks/${hook.id}`, { creds: seller, body: { active: false } })).status,
  ).toBe(200);
  const first = await paidCharge();
  const second = await paidCharge();
  // Both events went out (to no one here): what a disabled webhook misses.
  await waitFor(async () => {
    const [{ n }] = await stack.sequelize.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM outbox_events WHERE aggregate_id IN (:ids) AND type = 'charge.paid' AND dispatched_at IS NOT NULL`,
      { replacements: { ids: [first.id, second.id] }, type: QueryTypes.SELECT },
    );
    return n === 2;
  }, 'the events dispatched');
  expect(at('/re-enabled')).toEqual([]);
  const enabled = await stack.api('PATCH', `/sellers/webhooks/${hook.id}`, { creds: seller, body: { active: true } });
  expect(enabled).toMatchObject({ status: 200, body: { active: true, disabledReason: null } });
  await waitFor(async () => at('/re-enabled', 'charge.paid').length === 2, 'the missed charge.paid events');
  expect(at('/re-enabled', 'charge.paid').map((r) => JSON.parse(r.rawBody).data.id)).toEqual([first.id, second.id]);
  for (const r of at('/re-enabled')) expect(standardVerified(r, hook.secret)).toMatchObject({ type: 'charge.paid' });
});

it('a private receiver (WEBHOOK_PRIVATE_RECEIVERS) is registered only by the merchants its entry names', async () => {
  // An API with production's rules and one receiver, listed for `seller`. Registration checks the
  // address only: nothing connects to 10.1.2.3 here (the delivery side: test/workflows/webhookDestinations).
  const production = await stack.extraApi({
    allowPrivateWebhookDestinations: false,
    webhookPrivateReceivers: [{ receiver: '10.1.2.3:8443', merchantIds: [seller.merchantId] }],
  });
  const api = stackApi(production.url);
  const neighbour = await stack.createMerchant({ name: 'Loja Vizinha' });
  const privateUrl = 'http://10.1.2.3:8443/events?tenant=x';
  const refused = (field: string) => ({
    status: 400,
    body: { error: { details: { fields: [{ field, message: expect.stringContaining('private') }] } } },
  });
  try {
    const mine = await api('POST', '/sellers/webhooks', {
      creds: seller,
      body: { url: privateUrl, events: ['charge.paid'] },
    });
    expect(mine).toMatchObject({ status: 201, body: { url: privateUrl } });
    // Gone at once: this file's other tests pay charges, and this stack's worker allows any address.
    expect((await stack.api('DELETE', `/sellers/webhooks/${mine.body.id}`, { creds: seller })).status).toBe(200);

    expect(
      await api('POST', '/sellers/webhooks', { creds: neighbour, body: { url: privateUrl, events: ['charge.paid'] } }),
    ).toMatchObject(refused('url'));
    const theirs = await api('POST', '/sellers/webhooks', {
      creds: neighbour,
      body: { url: 'https://93.184.216.34/hooks', events: ['charge.paid'] },
    });
    expect(theirs.status).toBe(201);
    expect(
      await api('PATCH', `/sellers/webhooks/${theirs.body.id}`, { creds: neighbour, body: { url: privateUrl } }),
    ).toMatchObject(refused('url'));
    expect(
      await api('POST', '/sellers/pix', { creds: neighbour, body: { amountCents: 2_000, webhook_url: privateUrl } }),
    ).toMatchObject(refused('webhook_url'));
  } finally {
    await production.close();
  }
});

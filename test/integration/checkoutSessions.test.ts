/**
 * Checkout sessions (application API /checkout/sessions) over HTTP against the real stack: the
 * same table, charge issue path, page URL and lifecycle as P0 checkouts (kind SESSION), and the
 * operator CLI for checkouts (`credential create --scopes checkout:…`, `sandbox pay bill_…`).
 */
import crypto from 'node:crypto';
import { Checkout, CheckoutItem, OutboxEvent } from '../../db/models';
import { waitFor } from '../support/env';
import { sharedIntegrationStack, type SharedStack } from '../support/sharedStack';
import { assertLedgerInvariant } from '../support/ledger';
import { checkRecordedEvents } from '../support/webhookEvents';
import type { AppClient } from '../support/appClient';
import {
  checkoutBody,
  enrolmentsOf,
  postCheckout,
  producer,
  sellableCourse,
  type Producer,
} from '../support/checkouts';
import { signedInUser } from '../support/signedIn';
import { BUILD_WAIT_MS, builtOperatorCli, type OperatorCli } from '../support/operatorCli';

jest.setTimeout(120_000);

let stack: SharedStack;
let shop: Producer;
const key = () => ({ 'x-idempotency-key': `sess-${crypto.randomUUID()}` });
const SESSION_FIELDS = ['amountCents', 'chargeId', 'createdAt', 'expiresAt', 'id', 'merchantId', 'status', 'url'];

beforeAll(async () => {
  stack = await sharedIntegrationStack();
  shop = await producer(stack);
});

afterAll(async () => {
  await stack?.stop();
});

afterEach(async () => {
  await assertLedgerInvariant(stack.sequelize);
});

const create = (
  body: Record<string, unknown>,
  headers: Record<string, string> = key(),
  client: AppClient = shop.client,
) => client.call('POST', '/checkout/sessions', { body: { merchantId: shop.merchantId, ...body }, headers });

it('creates a session: CREATED, the page URL, the charge behind it; successUrl/cancelUrl/externalRef stored as completion/return URL and external id', async () => {
  const res = await create({
    amountCents: 3_500,
    items: [
      { name: 'Ebook', quantity: 1, unitAmountCents: 1_500 },
      { name: 'Aula ao vivo', quantity: 2, unitAmountCents: 1_000 },
    ],
    successUrl: 'https://loja.example.com/ok',
    cancelUrl: 'https://loja.example.com/voltar',
    externalRef: 'pedido-9',
    metadata: { canal: 'app' },
  });
  expect(res.status).toBe(201);
  expect(Object.keys(res.body).sort()).toEqual(SESSION_FIELDS);
  expect(res.body).toMatchObject({
    merchantId: shop.merchantId,
    status: 'CREATED',
    amountCents: 3_500,
    url: `${stack.apiUrl}/c/${res.body.id}`,
  });
  const row = await Checkout.findByPk(res.body.id);
  expect(row).toMatchObject({
    kind: 'SESSION',
    chargeId: res.body.chargeId,
    completionUrl: 'https://loja.example.com/ok',
    returnUrl: 'https://loja.example.com/voltar',
    externalId: 'pedido-9',
    metadata: { canal: 'app' },
  });
  const items = await CheckoutItem.findAll({ where: { checkoutId: row!.id }, order: [['position', 'ASC']] });
  expect(items.map((i) => [i.name, i.quantity, i.unitAmountCents, i.priceId])).toEqual([
    ['Ebook', 1, 1_500, null],
    ['Aula ao vivo', 2, 1_000, null],
  ]);
  const charge = await shop.client.call('GET', `/charges/${res.body.chargeId}`);
  expect(charge.body).toMatchObject({ amountCents: 3_500, status: 'PENDING', externalRef: 'pedido-9' });
  expect((await shop.client.call('GET', `/checkout/sessions/${res.body.id}`)).body).toEqual(res.body);
  // A session is not a partner P0 checkout: not listed, not readable there.
  expect((await stack.api('GET', `/v1/checkouts/bill_${res.body.id}`, { creds: shop.creds })).status).toBe(404);
  expect(
    (await stack.api('GET', '/v1/checkouts', { creds: shop.creds })).body.data.map((c: { id: string }) => c.id),
  ).not.toContain(`bill_${res.body.id}`);
});

it('validates the body, needs an idempotency key and replays the same key', async () => {
  for (const body of [
    { amountCents: 0 },
    { amountCents: 100, items: [{ name: 'A', quantity: 1, unitAmountCents: 90 }] },
    { amountCents: 100, items: [] },
    { amountCents: 100, successUrl: 'not a url' },
    { amountCents: 100, externalRef: 'x'.repeat(129) },
    { amountCents: 100, currency: 'USD' },
  ]) {
    const res = await create(body);
    expect({ body, status: res.status, code: res.body.error?.code }).toEqual({
      body,
      status: 400,
      code: 'VALIDATION_ERROR',
    });
  }
  const noKey = await create({ amountCents: 100 }, {});
  expect([noKey.status, noKey.body.error.code]).toEqual([400, 'IDEMPOTENCY_KEY_REQUIRED']);
  const k = key();
  const first = await create({ amountCents: 700, externalRef: 'idem' }, k);
  const again = await create({ amountCents: 700, externalRef: 'idem' }, k);
  expect(first.status).toBe(201);
  expect(again.body).toEqual(first.body);
  expect(await Checkout.count({ where: { externalId: 'idem', merchantId: shop.merchantId } })).toBe(1);
  const other = await create({ amountCents: 701, externalRef: 'idem' }, k);
  expect([other.status, other.body.error.code]).toEqual([409, 'DUPLICATE_IDEMPOTENCY_KEY']);
});

it('is 404 to anyone outside the merchant; 400 for a malformed id', async () => {
  const session = (await create({ amountCents: 800 })).body;
  const { client: stranger } = await signedInUser(stack, { emailPrefix: 'stranger' });
  for (const p of [`/checkout/sessions/${session.id}`, `/checkout/sessions/${session.id}/status`]) {
    const res = await stranger.call('GET', p);
    expect([res.status, res.body.error.code]).toEqual([404, 'CHECKOUT_NOT_FOUND']);
    expect(JSON.stringify(res.body)).not.toContain(shop.merchantId);
  }
  const foreignCreate = await create({ amountCents: 100 }, key(), stranger);
  expect(foreignCreate.status).toBe(404);
  expect((await shop.client.call('GET', `/checkout/sessions/${crypto.randomUUID()}`)).status).toBe(404);
  expect((await shop.client.call('GET', '/checkout/sessions/abc')).status).toBe(400);
  expect((await shop.client.call('GET', `/checkout/sessions/${session.id}`, { bearer: null })).status).toBe(401);
});

it('moves CREATED → OPENED (page viewed) → COMPLETED when paid; /status answers {id, status, updatedAt}; checkout.paid carries the session', async () => {
  const session = (await create({ amountCents: 1_200 })).body;
  const status = async () => (await shop.client.call('GET', `/checkout/sessions/${session.id}/status`)).body;
  expect(await status()).toEqual({ id: session.id, status: 'CREATED', updatedAt: expect.any(String) });
  // The hosted page (another helper's) stamps opened_at on the first view.
  await stack.sequelize.query(`UPDATE checkouts SET opened_at = now() WHERE id = :id`, {
    replacements: { id: session.id },
  });
  expect((await status()).status).toBe('OPENED');
  await stack.pay(session.chargeId);
  await waitFor(async () => (await status()).status === 'COMPLETED', 'session COMPLETED');
  expect(await enrolmentsOf(stack.sequelize, session.id)).toEqual([]); // free-form items enrol nobody
  const event = await OutboxEvent.findOne({ where: { type: 'checkout.paid', aggregateId: session.id } });
  expect(event?.payload).toMatchObject({
    id: session.id,
    status: 'COMPLETED',
    amountCents: 1_200,
    chargeId: session.chargeId,
  });
});

it('an expired (cancelled) session answers EXPIRED', async () => {
  const session = (await create({ amountCents: 1_300 })).body;
  expect((await shop.client.call('POST', `/charges/${session.chargeId}/cancel`, { body: {} })).status).toBe(200);
  await waitFor(
    async () => (await shop.client.call('GET', `/checkout/sessions/${session.id}`)).body.status === 'EXPIRED',
    'session EXPIRED',
  );
});

describe('operator CLI', () => {
  let cli: OperatorCli;
  // The built CLI (test/support/operatorCli.ts), once the runner's production build is ready.
  beforeAll(async () => {
    cli = await builtOperatorCli();
  }, BUILD_WAIT_MS);
  // Its output; a failed call throws its result (status, stderr).
  const gateway = async (...args: string[]) => {
    const result = await cli.run(args, {
      DATABASE_URL: stack.workerEnv.DATABASE_URL,
      CREDENTIALS_ENCRYPTION_KEY: stack.encryptionKey,
      SANDBOX_BASE_URL: stack.sandboxUrl,
    });
    if (result.status !== 0) throw Object.assign(new Error(`gateway ${args.join(' ')} failed`), result);
    return result;
  };

  it('creates a credential with checkout scopes and pays a checkout by its bill_ id', async () => {
    const created = await gateway(
      'credential',
      'create',
      '--merchant',
      shop.merchantId,
      '--scopes',
      'checkout:read,checkout:write',
      '--json',
    );
    const credential = JSON.parse(created.stdout) as {
      clientId: string;
      clientSecret: string;
      scopes: string[];
      merchantId: string;
    };
    expect(credential.scopes).toEqual(['checkout:read', 'checkout:write']);
    const creds = {
      merchantId: credential.merchantId,
      clientId: credential.clientId,
      clientSecret: credential.clientSecret,
    };
    const { priceId, courseId } = await sellableCourse(stack.sequelize, shop.merchantId, 2_500);
    const checkout = (await postCheckout(stack, creds, checkoutBody([{ id: priceId, quantity: 1 }]))).body.data;
    expect(checkout.status).toBe('PENDING');
    const paid = await gateway('sandbox', 'pay', checkout.id);
    expect(paid.stdout).toMatch(/status\s+PAID/);
    await waitFor(
      async () => (await stack.api('GET', `/v1/checkouts/${checkout.id}`, { creds })).body.data.status === 'PAID',
      'checkout PAID',
    );
    expect(await enrolmentsOf(stack.sequelize, checkout.id)).toEqual([
      expect.objectContaining({ course_id: courseId, status: 'ACTIVE' }),
    ]);
    await expect(gateway('sandbox', 'pay', `bill_${crypto.randomUUID()}`)).rejects.toMatchObject({
      stderr: expect.stringMatching(/no checkout bill_/),
    });
  });
});

// Last: every event this file's flows recorded (and any other on this stack) against the API document.
it('records only events whose body matches the payload schema the API document gives their type', async () => {
  const { types, mismatches } = await checkRecordedEvents(stack.sequelize);
  expect(mismatches).toEqual([]);
  expect(types).toEqual(expect.arrayContaining(['checkout.paid']));
});

/**
 * Partner checkouts P0 (/v1/checkouts) over HTTP against the real stack: every P0 rule and error
 * code, the {data, success, error} envelope on every answer, idempotency, keyset pagination with
 * inserts in between, and the lifecycle driven by the charge: sandbox payment → PAID with one
 * enrolment per course however often the payment is reported, expiry → EXPIRED, cancel →
 * CANCELLED, full refund → REFUNDED with enrolments revoked; checkout.* webhooks delivered.
 */
import crypto from 'node:crypto';
import { WorkflowNotFoundError } from '@temporalio/client';
import { Charge, Checkout, CheckoutItem, OutboxEvent } from '../../db/models';
import { createApiCredential, type MerchantCredentials } from '../../db/identity/merchantAdmin';
import { signedRequestHeaders } from '../../core/signatures/requestSignature';
import { chargeWorkflowId, paymentConfirmedSignal } from '../../workflows/charges/definitions';
import { waitFor } from '../support/env';
import { startIntegrationStack, type IntegrationStack } from '../support/integrationStack';
import { assertLedgerInvariant } from '../support/ledger';
import { checkRecordedEvents } from '../support/webhookEvents';
import { startReceiver, type Receiver } from '../support/receiver';
import {
  chargeOf,
  checkoutBody,
  enrolmentsOf,
  idemKey,
  insertCourse,
  insertPrice,
  postCheckout,
  producer,
  sellableCourse,
  type Producer,
} from '../support/checkouts';
import { pspChargeRef } from '../../core/pix/apiPixIds';

jest.setTimeout(180_000);

let stack: IntegrationStack;
let receiver: Receiver;
let shop: Producer;
/** Created first with a 61 s expiry, checked last: the wait overlaps the other tests. */
let expiring: { id: string };

const P0_FIELDS = [
  'amount',
  'completionUrl',
  'coupons',
  'createdAt',
  'customerId',
  'devMode',
  'externalId',
  'frequency',
  'id',
  'items',
  'metadata',
  'paidAmount',
  'receiptUrl',
  'returnUrl',
  'status',
  'updatedAt',
  'url',
];

const expectP0Error = (res: { status: number; body: any }, status: number, code: string) => {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
  expect(res.body).toMatchObject({ data: null, success: false, error: { code, message: expect.any(String) } });
  expect(Object.keys(res.body).sort()).toEqual(['data', 'error', 'success']);
};

async function webhookFor(p: Producer, events: string[]) {
  const admin = await createApiCredential(
    { merchantId: p.merchantId, scopes: ['webhooks:write'] },
    stack.encryptionKey,
  );
  const res = await stack.api('POST', '/sellers/webhooks', {
    creds: admin,
    body: { url: `${receiver.url}/${p.merchantId}`, events },
  });
  expect(res.status).toBe(201);
}

const delivered = (p: Producer, type: string, id: string) =>
  receiver.received
    .filter((r) => r.path === `/${p.merchantId}`)
    .map((r) => JSON.parse(r.rawBody))
    .filter((e) => e.type === type && e.data.id === id);

async function waitForStatus(creds: MerchantCredentials, id: string, status: string, timeoutMs = 20_000) {
  return waitFor(
    async () => {
      const res = await stack.api('GET', `/v1/checkouts/${id}`, { creds });
      return res.body.data?.status === status ? res.body.data : undefined;
    },
    `checkout ${id} ${status}`,
    timeoutMs,
  );
}

beforeAll(async () => {
  stack = await startIntegrationStack({ webhookDispatcher: true });
  receiver = await startReceiver();
  shop = await producer(stack);
  await webhookFor(shop, ['checkout.paid', 'checkout.expired', 'checkout.cancelled', 'checkout.refunded']);
  const { priceId } = await sellableCourse(stack.sequelize, shop.merchantId, 1_500);
  const res = await postCheckout(
    stack,
    shop.creds,
    checkoutBody([{ id: priceId, quantity: 1 }], { expiresAt: new Date(Date.now() + 61_000).toISOString() }),
  );
  expect(res.status).toBe(201);
  expiring = res.body.data;
});

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
});

afterEach(async () => {
  await assertLedgerInvariant(stack.sequelize);
});

describe('POST /v1/checkouts', () => {
  it('creates the checkout: the P0 public object exactly, one PIX charge of Σ price × quantity, items stored with unit amounts and course titles', async () => {
    const a = await sellableCourse(stack.sequelize, shop.merchantId, 4_990, 'Violão para iniciantes');
    const b = await sellableCourse(stack.sequelize, shop.merchantId, 1_000, 'Teoria musical');
    const body = checkoutBody(
      [
        { id: a.priceId, quantity: 1 },
        { id: b.priceId, quantity: 3 },
      ],
      { metadata: { pedido: '77', canal: 'parceiro' } },
    );
    const res = await postCheckout(stack, shop.creds, body);
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'error', 'success']);
    expect(res.body.success).toBe(true);
    expect(res.body.error).toBeNull();
    const data = res.body.data;
    expect(Object.keys(data).sort()).toEqual(P0_FIELDS);
    expect(data).toEqual({
      id: expect.stringMatching(/^bill_[0-9a-f-]{36}$/),
      externalId: body.externalId,
      url: `${stack.apiUrl}/c/${data.id.slice(5)}`,
      amount: 4_990 + 3 * 1_000,
      paidAmount: null,
      items: [
        { id: a.priceId, quantity: 1 },
        { id: b.priceId, quantity: 3 },
      ],
      status: 'PENDING',
      frequency: 'ONE_TIME',
      coupons: [],
      devMode: false,
      customerId: null,
      returnUrl: body.returnUrl,
      completionUrl: body.completionUrl,
      receiptUrl: null,
      metadata: { pedido: '77', canal: 'parceiro' },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const row = await Checkout.findByPk(data.id.slice(5));
    expect(row).toMatchObject({ kind: 'P0', merchantId: shop.merchantId, amountCents: 7_990, status: 'PENDING' });
    const charge = await Charge.findByPk(row!.chargeId);
    expect(charge).toMatchObject({
      merchantId: shop.merchantId,
      amountCents: 7_990,
      status: 'PENDING',
      externalRef: body.externalId,
      description: 'Violão para iniciantes, Teoria musical',
    });
    const items = await CheckoutItem.findAll({ where: { checkoutId: row!.id }, order: [['position', 'ASC']] });
    expect(
      items.map((i) => ({
        priceId: i.priceId,
        courseId: i.courseId,
        name: i.name,
        quantity: i.quantity,
        unit: i.unitAmountCents,
      })),
    ).toEqual([
      { priceId: a.priceId, courseId: a.courseId, name: 'Violão para iniciantes', quantity: 1, unit: 4_990 },
      { priceId: b.priceId, courseId: b.courseId, name: 'Teoria musical', quantity: 3, unit: 1_000 },
    ]);
    const read = await stack.api('GET', `/v1/checkouts/${data.id}`, { creds: shop.creds });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ data, success: true, error: null });
  });

  it('is idempotent: Idempotency-Key or x-idempotency-key; same payload → the same answer and one checkout; another payload → 409; no key → 400', async () => {
    const { priceId } = await sellableCourse(stack.sequelize, shop.merchantId);
    const body = checkoutBody([{ id: priceId, quantity: 1 }]);
    expectP0Error(await postCheckout(stack, shop.creds, body, {}), 400, 'IDEMPOTENCY_KEY_REQUIRED');
    const key = `k-${crypto.randomUUID()}`;
    const first = await postCheckout(stack, shop.creds, body, { 'Idempotency-Key': key });
    const again = await postCheckout(stack, shop.creds, body, { 'Idempotency-Key': key });
    const lower = await postCheckout(stack, shop.creds, body, { 'x-idempotency-key': key });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(lower.body).toEqual(first.body);
    expect(await Checkout.count({ where: { externalId: body.externalId } })).toBe(1);
    expectP0Error(
      await postCheckout(stack, shop.creds, { ...body, metadata: { other: 'x' } }, { 'Idempotency-Key': key }),
      409,
      'DUPLICATE_IDEMPOTENCY_KEY',
    );
    // The same key with another merchant is another key.
    const other = await producer(stack);
    const theirs = await sellableCourse(stack.sequelize, other.merchantId);
    expect(
      (
        await postCheckout(stack, other.creds, checkoutBody([{ id: theirs.priceId, quantity: 1 }]), {
          'Idempotency-Key': key,
        })
      ).status,
    ).toBe(201);
  });

  it('refuses the P0 exclusions with their 422 codes; coupons [] and customerId null are accepted', async () => {
    const { priceId } = await sellableCourse(stack.sequelize, shop.merchantId);
    const items = [{ id: priceId, quantity: 1 }];
    for (const frequency of ['SUBSCRIPTION', 'MULTIPLE_PAYMENTS', 'weekly']) {
      expectP0Error(
        await postCheckout(stack, shop.creds, checkoutBody(items, { frequency })),
        422,
        'FREQUENCY_NOT_ENABLED_YET',
      );
    }
    expectP0Error(
      await postCheckout(stack, shop.creds, checkoutBody(items, { customerId: 'cus_123' })),
      422,
      'CUSTOMER_NOT_ENABLED_IN_P0',
    );
    expectP0Error(
      await postCheckout(stack, shop.creds, checkoutBody(items, { customerId: { id: 1 } })),
      422,
      'CUSTOMER_NOT_ENABLED_IN_P0',
    );
    expectP0Error(
      await postCheckout(stack, shop.creds, checkoutBody(items, { coupons: ['OFF10'] })),
      422,
      'COUPONS_NOT_ENABLED_IN_P0',
    );
    const accepted = await postCheckout(stack, shop.creds, checkoutBody(items, { coupons: [], customerId: null }));
    expect(accepted.status).toBe(201);
    expect(accepted.body.data).toMatchObject({ coupons: [], customerId: null });
  });

  it('checks each item price: exists → belongs to the merchant → active with a PUBLISHED course → ONE_TIME; a foreign price is not described', async () => {
    const ok = await sellableCourse(stack.sequelize, shop.merchantId);
    const unknown = crypto.randomUUID();
    const notFound = await postCheckout(
      stack,
      shop.creds,
      checkoutBody([
        { id: ok.priceId, quantity: 1 },
        { id: unknown, quantity: 1 },
      ]),
    );
    expectP0Error(notFound, 422, 'COURSE_PRICE_NOT_FOUND');
    expect(notFound.body.error.details).toEqual({ itemIndex: 1, priceId: unknown });

    const other = await producer(stack);
    const foreignCourse = await insertCourse(stack.sequelize, other.merchantId, { status: 'DRAFT', title: 'Segredo' });
    const foreignPrice = await insertPrice(stack.sequelize, other.merchantId, foreignCourse, {
      active: false,
      type: 'SUBSCRIPTION',
      amountCents: 123,
    });
    const foreign = await postCheckout(stack, shop.creds, checkoutBody([{ id: foreignPrice, quantity: 1 }]));
    expectP0Error(foreign, 422, 'COURSE_PRICE_NOT_OWNED_BY_MERCHANT');
    expect(foreign.body.error.details).toEqual({ itemIndex: 0, priceId: foreignPrice });
    expect(JSON.stringify(foreign.body)).not.toMatch(/Segredo|123|SUBSCRIPTION|DRAFT|inactive/);

    const inactive = await insertPrice(stack.sequelize, shop.merchantId, ok.courseId, { active: false });
    const inactiveRes = await postCheckout(stack, shop.creds, checkoutBody([{ id: inactive, quantity: 1 }]));
    expectP0Error(inactiveRes, 422, 'COURSE_PRICE_INACTIVE');
    expect(inactiveRes.body.error.details).toMatchObject({ reason: 'PRICE_INACTIVE' });
    for (const status of ['DRAFT', 'ARCHIVED'] as const) {
      const course = await insertCourse(stack.sequelize, shop.merchantId, { status });
      const price = await insertPrice(stack.sequelize, shop.merchantId, course);
      const res = await postCheckout(stack, shop.creds, checkoutBody([{ id: price, quantity: 1 }]));
      expectP0Error(res, 422, 'COURSE_PRICE_INACTIVE');
      expect(res.body.error.details).toMatchObject({ reason: 'COURSE_NOT_PUBLISHED', courseStatus: status });
    }
    for (const type of ['SUBSCRIPTION', 'MULTIPLE_PAYMENTS'] as const) {
      const price = await insertPrice(stack.sequelize, shop.merchantId, ok.courseId, { type });
      expectP0Error(
        await postCheckout(stack, shop.creds, checkoutBody([{ id: price, quantity: 1 }])),
        422,
        'COURSE_PRICE_TYPE_NOT_ENABLED_YET',
      );
    }
    // A refusal frees the key: the same key works once the items are fixed.
    const key = idemKey();
    expectP0Error(
      await postCheckout(stack, shop.creds, checkoutBody([{ id: unknown, quantity: 1 }]), key),
      422,
      'COURSE_PRICE_NOT_FOUND',
    );
    expect((await postCheckout(stack, shop.creds, checkoutBody([{ id: ok.priceId, quantity: 1 }]), key)).status).toBe(
      201,
    );
  });

  it.each([
    ['no items', { items: [] }],
    ['51 items', { items: Array.from({ length: 51 }, () => ({ id: crypto.randomUUID(), quantity: 1 })) }],
    ['quantity 0', { items: [{ id: crypto.randomUUID(), quantity: 0 }] }],
    ['quantity 1.5', { items: [{ id: crypto.randomUUID(), quantity: 1.5 }] }],
    ['item id not a UUID', { items: [{ id: 'price_1', quantity: 1 }] }],
    ['unknown field', { discount: 10 }],
    ['unknown item field', { items: [{ id: crypto.randomUUID(), quantity: 1, price: 1 }] }],
    ['relative returnUrl', { returnUrl: '/voltar' }],
    ['ftp completionUrl', { completionUrl: 'ftp://x.example.com/' }],
    ['externalId of 129', { externalId: 'x'.repeat(129) }],
    ['metadata too big', { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) }],
    ['expiresAt in the past', { expiresAt: '2020-01-01T00:00:00Z' }],
    ['expiresAt in 31 days', { expiresAt: new Date(Date.now() + 31 * 86_400_000).toISOString() }],
    ['missing completionUrl', { completionUrl: undefined }],
  ])('400 VALIDATION_ERROR in the P0 envelope: %s', async (_name, change) => {
    const { priceId } = await sellableCourse(stack.sequelize, shop.merchantId);
    const res = await postCheckout(stack, shop.creds, { ...checkoutBody([{ id: priceId, quantity: 1 }]), ...change });
    expectP0Error(res, 400, 'VALIDATION_ERROR');
    expect(res.body.error.details.fields.length).toBeGreaterThan(0);
  });

  it('answers a body that is not JSON in the P0 envelope', async () => {
    expectP0Error(
      await stack.api('POST', '/v1/checkouts', { creds: shop.creds, rawBody: '{"items": [', headers: idemKey() }),
      400,
      'VALIDATION_ERROR',
    );
  });
});

describe('credentials, scopes and signatures, always in the P0 envelope', () => {
  it('401 CREDENTIALS_REQUIRED and INVALID_CREDENTIALS', async () => {
    for (const [method, path] of [
      ['POST', '/v1/checkouts'],
      ['GET', '/v1/checkouts'],
      ['GET', `/v1/checkouts/bill_${crypto.randomUUID()}`],
    ]) {
      expectP0Error(
        await stack.api(method, path, { body: method === 'POST' ? {} : undefined }),
        401,
        'CREDENTIALS_REQUIRED',
      );
      expectP0Error(
        await stack.api(method, path, {
          creds: { ...shop.creds, clientSecret: 'sk_wrong' },
          body: method === 'POST' ? {} : undefined,
        }),
        401,
        'INVALID_CREDENTIALS',
      );
    }
  });

  it('403 INSUFFICIENT_SCOPE: checkout:read cannot create; charges-only cannot read; checkout:write reads too', async () => {
    const { priceId } = await sellableCourse(stack.sequelize, shop.merchantId);
    const reader = await createApiCredential(
      { merchantId: shop.merchantId, scopes: ['checkout:read'] },
      stack.encryptionKey,
    );
    const denied = await postCheckout(stack, reader, checkoutBody([{ id: priceId, quantity: 1 }]));
    expectP0Error(denied, 403, 'INSUFFICIENT_SCOPE');
    expect(denied.body.error.details).toEqual({ requiredScope: 'checkout:write' });
    expect((await stack.api('GET', '/v1/checkouts', { creds: reader })).status).toBe(200);
    const chargesOnly = await createApiCredential(
      { merchantId: shop.merchantId, scopes: ['charges:read', 'charges:write'] },
      stack.encryptionKey,
    );
    expectP0Error(await stack.api('GET', '/v1/checkouts', { creds: chargesOnly }), 403, 'INSUFFICIENT_SCOPE');
    expectP0Error(
      await stack.api('GET', `/v1/checkouts/${expiring.id}`, { creds: chargesOnly }),
      403,
      'INSUFFICIENT_SCOPE',
    );
    const writer = await createApiCredential(
      { merchantId: shop.merchantId, scopes: ['checkout:write'] },
      stack.encryptionKey,
    );
    expect((await stack.api('GET', `/v1/checkouts/${expiring.id}`, { creds: writer })).status).toBe(200);
  });

  it('verifies a signature when sent (401 INVALID_SIGNATURE), accepts a good one; in production it is required and URLs must be https', async () => {
    const { priceId } = await sellableCourse(stack.sequelize, shop.merchantId);
    const body = checkoutBody([{ id: priceId, quantity: 1 }]);
    const raw = JSON.stringify(body);
    const signed = (url: string, rawBody: string, tamper = false): Promise<{ status: number; body: any }> => {
      const headers = signedRequestHeaders({
        ...shop.creds,
        method: 'POST',
        path: '/v1/checkouts',
        rawBody,
        timestampMs: Date.now(),
      });
      if (tamper) headers['x-gateway-signature'] = '0'.repeat(64);
      return fetch(`${url}/v1/checkouts`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', ...idemKey() },
        body: rawBody,
      }).then(async (r) => ({ status: r.status, body: await r.json() }));
    };
    expectP0Error(await signed(stack.apiUrl, raw, true), 401, 'INVALID_SIGNATURE');
    expect((await signed(stack.apiUrl, raw)).status).toBe(201);

    const prod = await stack.extraApi({ production: true });
    try {
      const unsigned = await fetch(`${prod.url}/v1/checkouts`, {
        method: 'POST',
        headers: {
          'x-client-id': shop.creds.clientId,
          'x-client-secret': shop.creds.clientSecret,
          'content-type': 'application/json',
          ...idemKey(),
        },
        body: raw,
      }).then(async (r) => ({ status: r.status, body: await r.json() }));
      expectP0Error(unsigned, 401, 'INVALID_SIGNATURE');
      const http = await signed(prod.url, JSON.stringify({ ...body, returnUrl: 'http://loja.example.com/voltar' }));
      expectP0Error(http, 400, 'VALIDATION_ERROR');
      expect(http.body.error.details.fields).toEqual([
        { field: 'returnUrl', message: 'must be an https URL in production' },
      ]);
      const created = await signed(prod.url, JSON.stringify({ ...body, externalId: 'prod-1' }));
      expect(created.status).toBe(201);
    } finally {
      await prod.close();
    }
  });

  it('429, unknown routes and unsupported methods answer in the P0 envelope too', async () => {
    expectP0Error(
      await stack.api('GET', `/v1/checkouts/${expiring.id}/nothing`, { creds: shop.creds }),
      404,
      'NOT_FOUND',
    );
    const wrongMethod = await stack.api('DELETE', `/v1/checkouts/${expiring.id}`, { creds: shop.creds });
    expectP0Error(wrongMethod, 405, 'METHOD_NOT_ALLOWED');
    expect(wrongMethod.headers.get('allow')).toBe('GET, HEAD');
    const limited = await stack.extraApi({ rateLimitPerMinute: 1 });
    try {
      const call = () =>
        fetch(`${limited.url}/v1/checkouts`, {
          headers: { 'x-client-id': shop.creds.clientId, 'x-client-secret': shop.creds.clientSecret },
        }).then(async (r) => ({ status: r.status, body: await r.json() }));
      await call();
      expectP0Error(await call(), 429, 'RATE_LIMITED');
    } finally {
      await limited.close();
    }
  });
});

describe('GET /v1/checkouts/{id} and GET /v1/checkouts', () => {
  it('422 INVALID_CHECKOUT_ID for anything but bill_<uuid>; 404 CHECKOUT_NOT_FOUND for another merchant’s or an unknown one', async () => {
    for (const bad of ['123', crypto.randomUUID(), 'bill_', 'bill_123', `chk_${crypto.randomUUID()}`]) {
      expectP0Error(await stack.api('GET', `/v1/checkouts/${bad}`, { creds: shop.creds }), 422, 'INVALID_CHECKOUT_ID');
    }
    expectP0Error(
      await stack.api('GET', `/v1/checkouts/bill_${crypto.randomUUID()}`, { creds: shop.creds }),
      404,
      'CHECKOUT_NOT_FOUND',
    );
    const other = await producer(stack);
    expectP0Error(
      await stack.api('GET', `/v1/checkouts/${expiring.id}`, { creds: other.creds }),
      404,
      'CHECKOUT_NOT_FOUND',
    );
    expect((await stack.api('GET', '/v1/checkouts', { creds: other.creds })).body).toEqual({
      data: [],
      success: true,
      error: null,
      pagination: { hasMore: false, next: null, before: null },
    });
  });

  it('pages newest first by keyset: no duplicates and no gaps across pages while checkouts are created in between', async () => {
    const p = await producer(stack);
    const { priceId } = await sellableCourse(stack.sequelize, p.merchantId);
    const create = async (n: number) =>
      (await postCheckout(stack, p.creds, checkoutBody([{ id: priceId, quantity: 1 }], { externalId: `lote-${n}` })))
        .body.data.id as string;
    const initial: string[] = [];
    for (let i = 0; i < 7; i++) initial.push(await create(i));

    const seen: string[] = [];
    let after: string | null = null;
    let pages = 0;
    for (;;) {
      const path: string = `/v1/checkouts?limit=3${after ? `&after=${after}` : ''}`;
      const res = await stack.api('GET', path, { creds: p.creds });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ success: true, error: null });
      expect(res.body.pagination.before).toBe(after);
      seen.push(...res.body.data.map((c: { id: string }) => c.id));
      pages++;
      // New checkouts while paging: they are newer than page one, so later pages never shift.
      await create(100 + pages);
      if (!res.body.pagination.hasMore) {
        expect(res.body.pagination.next).toBeNull();
        break;
      }
      expect(res.body.pagination.next).toBe(res.body.data[res.body.data.length - 1].id);
      after = res.body.pagination.next;
    }
    expect(pages).toBe(3);
    expect(seen).toEqual([...initial].reverse());

    const all = await stack.api('GET', '/v1/checkouts?limit=100', { creds: p.creds });
    expect(all.body.data).toHaveLength(10);
    const times = all.body.data.map((c: { createdAt: string }) => c.createdAt);
    expect([...times].sort().reverse()).toEqual(times);
  });

  it('filters by id, externalId and status; validates limit, after and status', async () => {
    const p = await producer(stack);
    const { priceId } = await sellableCourse(stack.sequelize, p.merchantId);
    const a = (
      await postCheckout(stack, p.creds, checkoutBody([{ id: priceId, quantity: 1 }], { externalId: 'filtro-a' }))
    ).body.data;
    const b = (
      await postCheckout(stack, p.creds, checkoutBody([{ id: priceId, quantity: 2 }], { externalId: 'filtro-b' }))
    ).body.data;
    const ids = async (query: string) =>
      (await stack.api('GET', `/v1/checkouts?${query}`, { creds: p.creds })).body.data.map((c: { id: string }) => c.id);
    expect(await ids(`id=${a.id}`)).toEqual([a.id]);
    expect(await ids('externalId=filtro-b')).toEqual([b.id]);
    expect(await ids('status=PENDING')).toEqual([b.id, a.id]);
    expect(await ids('status=PAID')).toEqual([]);
    expect(await ids(`id=${expiring.id}`)).toEqual([]); // another merchant's
    expect((await stack.api('GET', '/v1/checkouts', { creds: p.creds })).body.data).toHaveLength(2); // default limit 20
    for (const bad of ['limit=0', 'limit=101', 'limit=abc', 'status=OPEN', 'foo=1']) {
      expectP0Error(await stack.api('GET', `/v1/checkouts?${bad}`, { creds: p.creds }), 400, 'VALIDATION_ERROR');
    }
    expectP0Error(await stack.api('GET', '/v1/checkouts?after=123', { creds: p.creds }), 422, 'INVALID_CHECKOUT_ID');
    expectP0Error(await stack.api('GET', '/v1/checkouts?id=abc', { creds: p.creds }), 422, 'INVALID_CHECKOUT_ID');
    // An unknown cursor and another merchant's cursor answer alike, as GET /v1/checkouts/{id} does.
    expectP0Error(
      await stack.api('GET', `/v1/checkouts?after=bill_${crypto.randomUUID()}`, { creds: p.creds }),
      404,
      'CHECKOUT_NOT_FOUND',
    );
    expectP0Error(
      await stack.api('GET', `/v1/checkouts?after=${expiring.id}`, { creds: p.creds }),
      404,
      'CHECKOUT_NOT_FOUND',
    );
  });
});

describe('lifecycle', () => {
  it('paid in the sandbox → PAID, paidAmount, one enrolment per course however often the payment is reported; checkout.paid delivered', async () => {
    const a = await sellableCourse(stack.sequelize, shop.merchantId, 2_000);
    const b = await sellableCourse(stack.sequelize, shop.merchantId, 500);
    const created = (
      await postCheckout(
        stack,
        shop.creds,
        checkoutBody([
          { id: a.priceId, quantity: 1 },
          { id: b.priceId, quantity: 2 },
          { id: a.priceId, quantity: 1 },
        ]),
      )
    ).body.data;
    expect(created.amount).toBe(5_000);
    const chargeId = await chargeOf(stack.sequelize, created.id);
    expect((await stack.pay(chargeId, { name: 'Maria Aluna' })).status).toBe(200);
    const paid = await waitForStatus(shop.creds, created.id, 'PAID');
    expect(paid).toMatchObject({ paidAmount: 5_000, status: 'PAID' });
    expect(await enrolmentsOf(stack.sequelize, created.id)).toEqual(
      [a.courseId, b.courseId].sort().map((courseId) => ({
        course_id: courseId,
        status: 'ACTIVE',
        revoked_reason: null,
        student_name: 'Maria Aluna',
      })),
    );

    // The provider repeats its callback twice and a confirmation signal arrives again: nothing moves twice.
    const charge = await Charge.findByPk(chargeId);
    for (let i = 0; i < 2; i++)
      expect(
        (
          await fetch(`${stack.sandboxUrl}/sandbox/charges/${charge!.providerChargeId}/resend-callback`, {
            method: 'POST',
          })
        ).status,
      ).toBeLessThan(300);
    // The run may already have finished after settling (then the signal has nowhere to go, which
    // is also "nothing moves twice"); while it runs, it takes the duplicate and changes nothing.
    await stack.temporal.workflow
      .getHandle(chargeWorkflowId(chargeId))
      .signal(paymentConfirmedSignal, {
        providerChargeId: charge!.providerChargeId!,
        endToEndId: charge!.endToEndId!,
        amountCents: 5_000,
        paidAt: new Date().toISOString(),
        payer: null,
      })
      .catch((err: unknown) => {
        if (!(err instanceof WorkflowNotFoundError)) throw err;
      });
    await waitFor(
      async () =>
        stack.sandbox.state.callbacks.filter((c) => c.chargeId === charge!.providerChargeId && c.delivered).length >= 3,
      'repeated callbacks delivered',
    );
    await new Promise((r) => setTimeout(r, 500));
    expect(await enrolmentsOf(stack.sequelize, created.id)).toHaveLength(2);
    expect(await OutboxEvent.count({ where: { type: 'checkout.paid', aggregateId: created.id.slice(5) } })).toBe(1);

    await waitFor(async () => delivered(shop, 'checkout.paid', created.id).length === 1, 'checkout.paid delivered');
    const [event] = delivered(shop, 'checkout.paid', created.id);
    expect(Object.keys(event.data).sort()).toEqual(P0_FIELDS);
    expect(event.data).toMatchObject({
      id: created.id,
      status: 'PAID',
      paidAmount: 5_000,
      url: created.url,
      frequency: 'ONE_TIME',
      coupons: [],
      receiptUrl: null,
    });
  });

  it('a full refund (POST /charges/{id}/refund) → REFUNDED, enrolments REVOKED, checkout.refunded delivered; the ledger holds', async () => {
    const { priceId, courseId } = await sellableCourse(stack.sequelize, shop.merchantId, 3_000);
    const created = (await postCheckout(stack, shop.creds, checkoutBody([{ id: priceId, quantity: 1 }]))).body.data;
    const chargeId = await chargeOf(stack.sequelize, created.id);
    await stack.pay(chargeId);
    await waitForStatus(shop.creds, created.id, 'PAID');
    const refund = await shop.client.call('POST', `/charges/${chargeId}/refund`, {
      body: { reason: 'desistência' },
      headers: { 'x-idempotency-key': `r-${crypto.randomUUID()}` },
    });
    expect(refund.status).toBe(200);
    const refunded = await waitForStatus(shop.creds, created.id, 'REFUNDED');
    expect(refunded.paidAmount).toBe(3_000);
    expect(await enrolmentsOf(stack.sequelize, created.id)).toEqual([
      { course_id: courseId, status: 'REVOKED', revoked_reason: 'REFUNDED', student_name: expect.any(String) },
    ]);
    await waitFor(
      async () => delivered(shop, 'checkout.refunded', created.id).length === 1,
      'checkout.refunded delivered',
    );
    expect(delivered(shop, 'checkout.refunded', created.id)[0].data).toMatchObject({
      id: created.id,
      status: 'REFUNDED',
    });
  });

  it('a partial refund keeps the checkout PAID and the enrolment ACTIVE', async () => {
    const { priceId } = await sellableCourse(stack.sequelize, shop.merchantId, 3_000);
    const created = (await postCheckout(stack, shop.creds, checkoutBody([{ id: priceId, quantity: 1 }]))).body.data;
    const chargeId = await chargeOf(stack.sequelize, created.id);
    await stack.pay(chargeId);
    await waitForStatus(shop.creds, created.id, 'PAID');
    const refund = await shop.client.call('POST', `/charges/${chargeId}/refund`, {
      body: { amountCents: 1_000, reason: 'desconto' },
      headers: { 'x-idempotency-key': `r-${crypto.randomUUID()}` },
    });
    expect(refund.status).toBe(200);
    await waitFor(
      async () => (await shop.client.call('GET', `/charges/${chargeId}`)).body.refunds[0]?.status === 'SUCCEEDED',
      'partial refund settled',
    );
    expect((await stack.api('GET', `/v1/checkouts/${created.id}`, { creds: shop.creds })).body.data.status).toBe(
      'PAID',
    );
    expect((await enrolmentsOf(stack.sequelize, created.id))[0].status).toBe('ACTIVE');
  });

  it('cancelling the charge → CANCELLED and checkout.cancelled; a late payment still makes it PAID', async () => {
    const { priceId } = await sellableCourse(stack.sequelize, shop.merchantId, 900);
    const created = (await postCheckout(stack, shop.creds, checkoutBody([{ id: priceId, quantity: 1 }]))).body.data;
    const chargeId = await chargeOf(stack.sequelize, created.id);
    expect((await shop.client.call('POST', `/charges/${chargeId}/cancel`, { body: {} })).status).toBe(200);
    await waitForStatus(shop.creds, created.id, 'CANCELLED');
    await waitFor(
      async () => delivered(shop, 'checkout.cancelled', created.id).length === 1,
      'checkout.cancelled delivered',
    );
    // The payer's bank settled it as the provider closed it: money that arrived is never dropped.
    const late = await fetch(`${stack.sandboxUrl}/sandbox/charges/${pspChargeRef(chargeId)}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ late: true }),
    });
    expect(late.status).toBe(200);
    const paid = await waitForStatus(shop.creds, created.id, 'PAID');
    expect(paid.paidAmount).toBe(900);
    expect(await enrolmentsOf(stack.sequelize, created.id)).toHaveLength(1);
  });

  it('an unpaid checkout expires at expiresAt → EXPIRED and checkout.expired delivered', async () => {
    const expired = await waitForStatus(shop.creds, expiring.id, 'EXPIRED', 120_000);
    expect(expired.paidAmount).toBeNull();
    expect(await enrolmentsOf(stack.sequelize, expiring.id)).toEqual([]);
    await waitFor(
      async () => delivered(shop, 'checkout.expired', expiring.id).length === 1,
      'checkout.expired delivered',
    );
  });
});

// Last: every event this file's flows recorded (and any other on this stack) against the API document.
it('records only events whose body matches the payload schema the API document gives their type', async () => {
  const { types, mismatches } = await checkRecordedEvents(stack.sequelize);
  expect(mismatches).toEqual([]);
  expect(types).toEqual(expect.arrayContaining(['checkout.paid']));
});

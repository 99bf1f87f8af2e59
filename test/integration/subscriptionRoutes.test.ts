/**
 * The subscriptions API (issue 39) over HTTP against the real stack: /subscriptions (application
 * API), /v1/subscriptions (partners, P0 envelope) and the hosted page /subscribe/{id}.
 *
 * What needs no workflow is tested here: every refusal of a purchase (validation, the price's
 * checks, firstDueDate's bounds; nothing written), reads, keyset lists and cancels of rows written
 * as the workflow records them (test/support/subscriptions.ts), the page in each state.
 * Creating one for real (journeys 1–3, the first charge, the QR, a merchant's cancel reaching the
 * PSP) needs the workflow: test/workflows/subscriptionJourneys.test.ts and subscriptionYear.test.ts
 * cover it end to end, and the TODOs at the end of this file name what to add here once it is on main.
 */
import crypto from 'node:crypto';
import { brasiliaDate } from '../../core/subscriptions/issueWindow';
import { addDays, businessDaysAfter } from '../../api/subscriptions/dueDates';
// The registered schema (its module loads the OpenAPI registry before the schemas are built).
import { Subscription } from '../../api/subscriptions/openapi';
import { insertCourse, insertPrice, producer, type Producer } from '../support/checkouts';
import { sharedIntegrationStack, type SharedStack } from '../support/sharedStack';
import { insertSubscription, setSubscriptionStatus } from '../support/subscriptions';

jest.setTimeout(120_000);

let stack: SharedStack;
let shop: Producer;
let other: Producer;
let subscriptionPrice: string;

const key = () => ({ 'idempotency-key': `sub-${crypto.randomUUID()}` });
const payer = { name: 'Bia Souza', document: '529.982.247-25' };

beforeAll(async () => {
  stack = await sharedIntegrationStack();
  shop = await producer(stack);
  other = await producer(stack);
  const courseId = await insertCourse(stack.sequelize, shop.merchantId, { title: 'Violão do zero' });
  subscriptionPrice = await insertPrice(stack.sequelize, shop.merchantId, courseId, {
    type: 'SUBSCRIPTION',
    amountCents: 2_990,
  });
});

afterAll(async () => {
  await stack?.stop();
});

const create = (body: Record<string, unknown>, headers: Record<string, string> = key()) =>
  shop.client.call('POST', '/subscriptions', { body, headers });

async function written(merchantId: string): Promise<{ subscriptions: string; charges: string }> {
  const [rows] = await stack.sequelize.query(
    `SELECT (SELECT count(*) FROM subscriptions WHERE merchant_id = :m) AS subscriptions,
            (SELECT count(*) FROM charges WHERE merchant_id = :m) AS charges`,
    { replacements: { m: merchantId } },
  );
  return (rows as { subscriptions: string; charges: string }[])[0];
}

const fields = (res: { body: any }) =>
  (res.body.error?.details?.fields ?? []).map((f: { field: string }) => f.field).sort();

describe('POST /subscriptions refusals (nothing is written)', () => {
  it('needs an Idempotency-Key; refuses bodies the journey rules or the payer document fail', async () => {
    const before = await written(shop.merchantId);
    const noKey = await create({ priceId: subscriptionPrice, payer }, {});
    expect([noKey.status, noKey.body.error.code]).toEqual([400, 'IDEMPOTENCY_KEY_REQUIRED']);
    const cases: [Record<string, unknown>, string[]][] = [
      [{ journey: 'JOURNEY_1' }, ['payerAccount']],
      [{ journey: 'JOURNEY_2', payerAccount: { ispb: '60701190', account: '123456' } }, ['payerAccount']],
      [{ journey: 'JOURNEY_1', payerAccount: { ispb: '6070119', account: '123456' } }, ['payerAccount.ispb']],
      [{ payer: { name: 'Bia Souza', document: '529.982.247-24' } }, ['payer.document']],
      [{ payer: { name: 'Bia Souza', document: '11.222.333/0001-80' } }, ['payer.document']],
      [{ journey: 'JOURNEY_4' }, ['journey']],
      [{ firstDueDate: '2026-02-30' }, ['firstDueDate']],
      [{ metadata: 'not an object' }, ['metadata']],
      [{ returnUrl: 'javascript:alert(1)' }, ['returnUrl']],
      [{ currency: 'BRL' }, ['currency']],
    ];
    for (const [extra, expected] of cases) {
      const res = await create({ priceId: subscriptionPrice, payer, ...extra });
      expect([JSON.stringify(extra), res.status, res.body.error.code]).toEqual([
        JSON.stringify(extra),
        400,
        'VALIDATION_ERROR',
      ]);
      expect([JSON.stringify(extra), fields(res)]).toEqual([JSON.stringify(extra), expected]);
    }
    expect(await written(shop.merchantId)).toEqual(before);
  });

  it('checks the price in order: exists, the merchant’s (nothing of a foreign one leaks), active and PUBLISHED, SUBSCRIPTION', async () => {
    const before = await written(shop.merchantId);
    const draft = await insertCourse(stack.sequelize, shop.merchantId, { status: 'DRAFT' });
    const published = await insertCourse(stack.sequelize, shop.merchantId);
    const foreignCourse = await insertCourse(stack.sequelize, other.merchantId, { title: 'Segredo' });
    const prices = {
      unknown: crypto.randomUUID(),
      foreign: await insertPrice(stack.sequelize, other.merchantId, foreignCourse, { type: 'SUBSCRIPTION' }),
      inactive: await insertPrice(stack.sequelize, shop.merchantId, published, { type: 'SUBSCRIPTION', active: false }),
      draft: await insertPrice(stack.sequelize, shop.merchantId, draft, { type: 'SUBSCRIPTION' }),
      oneTime: await insertPrice(stack.sequelize, shop.merchantId, published, { type: 'ONE_TIME' }),
    };
    const answer = async (priceId: string) => {
      const res = await create({ priceId, payer });
      return [res.status, res.body.error.code, res.body.error.details];
    };
    expect(await answer(prices.unknown)).toEqual([422, 'COURSE_PRICE_NOT_FOUND', { priceId: prices.unknown }]);
    const foreign = await create({ priceId: prices.foreign, payer });
    expect([foreign.status, foreign.body.error.code]).toEqual([422, 'COURSE_PRICE_NOT_OWNED_BY_MERCHANT']);
    expect(JSON.stringify(foreign.body)).not.toMatch(/Segredo|SUBSCRIPTION|2990|4990/);
    expect(await answer(prices.inactive)).toEqual([
      422,
      'COURSE_PRICE_INACTIVE',
      { priceId: prices.inactive, reason: 'PRICE_INACTIVE', courseStatus: 'PUBLISHED' },
    ]);
    expect(await answer(prices.draft)).toEqual([
      422,
      'COURSE_PRICE_INACTIVE',
      { priceId: prices.draft, reason: 'COURSE_NOT_PUBLISHED', courseStatus: 'DRAFT' },
    ]);
    expect(await answer(prices.oneTime)).toEqual([
      422,
      'COURSE_PRICE_NOT_SUBSCRIPTION',
      { priceId: prices.oneTime, type: 'ONE_TIME' },
    ]);
    expect(await written(shop.merchantId)).toEqual(before);
  });

  it('bounds firstDueDate: journey 3 today only; journeys 1 and 2 from 3 business days to a year ahead', async () => {
    const before = await written(shop.merchantId);
    const today = brasiliaDate(Date.now());
    const j1 = { journey: 'JOURNEY_1', payerAccount: { ispb: '60701190', branch: '0001', account: '123456' } };
    for (const [extra, message] of [
      [{ journey: 'JOURNEY_3', firstDueDate: addDays(today, 1) }, /due today/],
      [{ journey: 'JOURNEY_2', firstDueDate: today }, /at least 3 business days/],
      [{ ...j1, firstDueDate: addDays(businessDaysAfter(today, 3), -1) }, /at least 3 business days/],
      [{ journey: 'JOURNEY_2', firstDueDate: addDays(today, 366) }, /at most a year/],
    ] as const) {
      const res = await create({ priceId: subscriptionPrice, payer, ...extra });
      expect([JSON.stringify(extra), res.status, fields(res)]).toEqual([JSON.stringify(extra), 400, ['firstDueDate']]);
      expect(res.body.error.details.fields[0].message).toMatch(message);
    }
    expect(await written(shop.merchantId)).toEqual(before);
  });

  it('another merchant named in the body: 404 MERCHANT_NOT_FOUND, as for a merchant that does not exist', async () => {
    const res = await create({ merchantId: other.merchantId, priceId: subscriptionPrice, payer });
    expect([res.status, res.body.error.code]).toEqual([404, 'MERCHANT_NOT_FOUND']);
  });
});

describe('reads, lists and cancels (rows as the workflow records them)', () => {
  it('GET /subscriptions/{id}: the merchant’s view (document masked, hosted page URL, QR while awaiting); another merchant’s → 404', async () => {
    const { id, courseId, priceId } = await insertSubscription(stack.sequelize, shop.merchantId, {
      externalId: 'pedido-1',
    });
    const res = await shop.client.call('GET', `/subscriptions/${id}`);
    expect(res.status).toBe(200);
    expect(Subscription.strict().parse(res.body)).toEqual(res.body);
    expect(res.body).toMatchObject({
      id,
      merchantId: shop.merchantId,
      courseId,
      priceId,
      status: 'AWAITING_AUTHORISATION',
      access: 'PENDING',
      hasAccess: false,
      journey: 'JOURNEY_3',
      interval: 'MONTHLY',
      retryPolicy: 'PERMITE_3R_7D',
      amountCents: 2_990,
      firstDueDate: '2026-12-10',
      url: `${stack.apiUrl}/subscribe/${id}`,
      externalId: 'pedido-1',
      metadata: { pedido: '7' },
      currentCycle: null,
    });
    expect(res.body.payer.name).toBe('Bia Souza');
    expect(res.body.payer.document).not.toBe('52998224725');
    expect(res.body.qrCopyPaste).toMatch(/^000201/);

    for (const path of [`/subscriptions/${id}`, `/subscriptions/${crypto.randomUUID()}`]) {
      const foreign = await other.client.call('GET', path);
      expect([foreign.status, foreign.body.error.code]).toEqual([404, 'SUBSCRIPTION_NOT_FOUND']);
    }
    const malformed = await shop.client.call('GET', '/subscriptions/not-a-uuid');
    expect([malformed.status, malformed.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
  });

  it('GET /subscriptions: newest first in keyset pages, filtered by status, only the merchant’s', async () => {
    const owner = await producer(stack);
    const t0 = Date.now() - 60_000;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const row = await insertSubscription(stack.sequelize, owner.merchantId, {
        createdAt: new Date(t0 + i * 1_000),
        status: i % 2 === 0 ? 'ACTIVE' : 'CANCELLED',
      });
      ids.push(row.id);
    }
    await insertSubscription(stack.sequelize, other.merchantId);
    const newestFirst = [...ids].reverse();
    const seen: string[] = [];
    let after: string | null = null;
    do {
      const page: any = await owner.client.call('GET', `/subscriptions?limit=2${after ? `&after=${after}` : ''}`);
      expect(page.status).toBe(200);
      seen.push(...page.body.data.map((s: { id: string }) => s.id));
      after = page.body.pagination.next;
      expect(page.body.pagination.hasMore).toBe(after !== null);
    } while (after);
    expect(seen).toEqual(newestFirst);

    const active = await owner.client.call('GET', '/subscriptions?status=ACTIVE');
    expect(active.body.data.map((s: { id: string }) => s.id)).toEqual(newestFirst.filter((_, i) => i % 2 === 0));
    expect(active.body.pagination).toEqual({ hasMore: false, next: null });

    // After the oldest: an empty last page. An `after` of another merchant's: 404, as its read answers.
    const last = await owner.client.call('GET', `/subscriptions?after=${ids[0]}&merchantId=${owner.merchantId}`);
    expect([last.status, last.body.data, last.body.pagination]).toEqual([200, [], { hasMore: false, next: null }]);
    const otherAfter = await other.client.call('GET', `/subscriptions?after=${ids[0]}`);
    expect([otherAfter.status, otherAfter.body.error.code]).toEqual([404, 'SUBSCRIPTION_NOT_FOUND']);
    const otherMerchant = await other.client.call('GET', `/subscriptions?merchantId=${owner.merchantId}`);
    expect([otherMerchant.status, otherMerchant.body.error.code]).toEqual([404, 'MERCHANT_NOT_FOUND']);
    for (const bad of ['limit=0', 'limit=101', 'status=PAID', 'after=x', 'other=1']) {
      const res = await owner.client.call('GET', `/subscriptions?${bad}`);
      expect([bad, res.status]).toEqual([bad, 400]);
    }
  });

  it('POST /subscriptions/{id}/cancel: ended (CANCELLED, REFUSED, EXPIRED) → 409 SUBSCRIPTION_ALREADY_ENDED; another merchant’s → 404', async () => {
    for (const status of ['CANCELLED', 'REFUSED', 'EXPIRED']) {
      const { id } = await insertSubscription(stack.sequelize, shop.merchantId, { status });
      const res = await shop.client.call('POST', `/subscriptions/${id}/cancel`);
      expect([status, res.status, res.body.error.code, res.body.error.details]).toEqual([
        status,
        409,
        'SUBSCRIPTION_ALREADY_ENDED',
        { status },
      ]);
      const partner = await stack.api('POST', `/v1/subscriptions/${id}/cancel`, { creds: shop.creds });
      expect([partner.status, partner.body.success, partner.body.error.code]).toEqual([
        409,
        false,
        'SUBSCRIPTION_ALREADY_ENDED',
      ]);
    }
    const { id } = await insertSubscription(stack.sequelize, shop.merchantId, { status: 'ACTIVE' });
    const foreign = await other.client.call('POST', `/subscriptions/${id}/cancel`);
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'SUBSCRIPTION_NOT_FOUND']);
    const foreignPartner = await stack.api('POST', `/v1/subscriptions/${id}/cancel`, { creds: other.creds });
    expect([foreignPartner.status, foreignPartner.body.error.code]).toEqual([404, 'SUBSCRIPTION_NOT_FOUND']);
    // A live row whose workflow does not exist (only a row written by hand): the run is gone → ended.
    const orphan = await shop.client.call('POST', `/subscriptions/${id}/cancel`);
    expect([orphan.status, orphan.body.error.code]).toEqual([409, 'SUBSCRIPTION_ALREADY_ENDED']);
    expect((await shop.client.call('GET', `/subscriptions/${id}`)).body.status).toBe('ACTIVE');
  });
});

describe('/v1/subscriptions (partners, P0 envelope)', () => {
  it('reads and lists in the envelope; malformed id → 422 INVALID_SUBSCRIPTION_ID; another merchant’s → 404', async () => {
    const { id } = await insertSubscription(stack.sequelize, shop.merchantId, { status: 'ACTIVE' });
    const read = await stack.api('GET', `/v1/subscriptions/${id}`, { creds: shop.creds });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ success: true, error: null, data: { id, status: 'ACTIVE', hasAccess: true } });
    expect(Subscription.strict().parse(read.body.data)).toEqual(read.body.data);
    const list = await stack.api('GET', '/v1/subscriptions?limit=1', { creds: shop.creds });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ success: true, error: null, pagination: { hasMore: true } });
    expect(list.body.data).toHaveLength(1);

    const foreign = await stack.api('GET', `/v1/subscriptions/${id}`, { creds: other.creds });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({
      data: null,
      success: false,
      error: { code: 'SUBSCRIPTION_NOT_FOUND', message: 'subscription not found' },
    });
    const malformed = await stack.api('GET', '/v1/subscriptions/sub_123', { creds: shop.creds });
    expect([malformed.status, malformed.body.error.code]).toEqual([422, 'INVALID_SUBSCRIPTION_ID']);
    const unknownPath = await stack.api('GET', `/v1/subscriptions/${id}/cycles`, { creds: shop.creds });
    expect([unknownPath.status, unknownPath.body.success]).toEqual([404, false]);
  });

  it('refuses a purchase in the envelope, in the same order as the application API', async () => {
    const before = await written(shop.merchantId);
    const noKey = await stack.api('POST', '/v1/subscriptions', {
      creds: shop.creds,
      body: { priceId: subscriptionPrice, payer },
    });
    expect([noKey.status, noKey.body.success, noKey.body.error.code]).toEqual([400, false, 'IDEMPOTENCY_KEY_REQUIRED']);
    const withMerchant = await stack.api('POST', '/v1/subscriptions', {
      creds: shop.creds,
      body: { merchantId: shop.merchantId, priceId: subscriptionPrice, payer },
      headers: { 'Idempotency-Key': crypto.randomUUID() },
    });
    expect([withMerchant.status, withMerchant.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
    const foreignCourse = await insertCourse(stack.sequelize, other.merchantId);
    const foreignPrice = await insertPrice(stack.sequelize, other.merchantId, foreignCourse, { type: 'SUBSCRIPTION' });
    const foreign = await stack.api('POST', '/v1/subscriptions', {
      creds: shop.creds,
      body: { priceId: foreignPrice, payer },
      headers: { 'Idempotency-Key': crypto.randomUUID() },
    });
    expect([foreign.status, foreign.body.success, foreign.body.error.code]).toEqual([
      422,
      false,
      'COURSE_PRICE_NOT_OWNED_BY_MERCHANT',
    ]);
    expect(await written(shop.merchantId)).toEqual(before);
  });

  it('needs the checkout scope', async () => {
    const readOnly = await producer(stack, ['charges:read']);
    const res = await stack.api('GET', '/v1/subscriptions', { creds: readOnly.creds });
    expect([res.status, res.body.error.code]).toEqual([403, 'INSUFFICIENT_SCOPE']);
  });
});

describe('the hosted page /subscribe/{id}', () => {
  it('awaiting authorisation: the course, the amount per period, the terms in Portuguese, the QR and its code', async () => {
    const { id } = await insertSubscription(stack.sequelize, shop.merchantId, {
      courseTitle: 'Inglês <para> a vida',
      amountCents: 4_990,
      interval: 'QUARTERLY',
      firstDueDate: '2027-01-15',
    });
    const res = await fetch(`${stack.apiUrl}/subscribe/${id}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-robots-tag')).toBe('noindex, nofollow');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    const html = await res.text();
    expect(html).toContain('lang="pt-BR"');
    expect(html).toContain('Inglês &lt;para&gt; a vida');
    expect(html).not.toContain('<para>');
    expect(html).toMatch(/R\$\s49,90 por trimestre/);
    for (const term of ['Valor', 'Periodicidade', 'Trimestral', 'Primeiro vencimento', '15/01/2027'])
      expect(html).toContain(term);
    expect(html).toContain('Política de retentativas');
    expect(html).toContain('até 3 vezes nos 7 dias seguintes');
    expect(html).toMatch(/Como cancelar<\/dt><dd>[^<]*app do seu banco/);
    expect(html).toContain(`src="/subscribe/${id}/qr.png"`);
    expect(html).toMatch(/<textarea id="pix-code"[^>]*>000201/);
    expect(html).toContain(`data-status-url="/subscribe/${id}/status"`);
    // Nothing the payer need not see: no merchant id, no full document.
    expect(html).not.toContain(shop.merchantId);
    expect(html).not.toContain('52998224725');

    const qr = await fetch(`${stack.apiUrl}/subscribe/${id}/qr.png`);
    expect(qr.status).toBe(200);
    expect(qr.headers.get('content-type')).toBe('image/png');
    expect(
      Buffer.from(await qr.arrayBuffer())
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');
    const status = await fetch(`${stack.apiUrl}/subscribe/${id}/status`);
    expect(status.status).toBe(200);
    expect(await status.json()).toMatchObject({ status: 'AWAITING_AUTHORISATION' });
    const js = await fetch(`${stack.apiUrl}/subscribe/assets/subscribe.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
  });

  it('after: the state in Portuguese, no QR; journey 1 says where to authorise; unknown and malformed ids → the 404 page', async () => {
    const { id } = await insertSubscription(stack.sequelize, shop.merchantId, { retryPolicy: 'NAO_PERMITE' });
    await setSubscriptionStatus(stack.sequelize, id, 'ACTIVE');
    const active = await (await fetch(`${stack.apiUrl}/subscribe/${id}`)).text();
    expect(active).toContain('Assinatura ativa');
    expect(active).toContain('Sem retentativas');
    expect(active).not.toContain('pix-code');
    expect((await fetch(`${stack.apiUrl}/subscribe/${id}/qr.png`)).status).toBe(404);
    await setSubscriptionStatus(stack.sequelize, id, 'CANCELLED');
    expect(await (await fetch(`${stack.apiUrl}/subscribe/${id}`)).text()).toContain('Assinatura cancelada');
    expect(await (await fetch(`${stack.apiUrl}/subscribe/${id}/status`)).json()).toMatchObject({ status: 'CANCELLED' });

    const j1 = await insertSubscription(stack.sequelize, shop.merchantId, { journey: 'JOURNEY_1', qrCopyPaste: null });
    const j1Html = await (await fetch(`${stack.apiUrl}/subscribe/${j1.id}`)).text();
    expect(j1Html).toContain('Autorize no app do seu banco');
    expect(j1Html).not.toContain('qr.png');

    for (const unknown of [crypto.randomUUID(), 'not-an-id']) {
      const res = await fetch(`${stack.apiUrl}/subscribe/${unknown}`);
      expect(res.status).toBe(404);
      expect(await res.text()).toContain('Assinatura não encontrada');
      const status = await fetch(`${stack.apiUrl}/subscribe/${unknown}/status`);
      expect(status.status).toBe(404);
    }
  });
});

describe('creating for real (the workflow on the stack; journeys over skipped time: test/workflows/subscription*.test.ts)', () => {
  it('POST /subscriptions journey 3: 201 AWAITING_AUTHORISATION with the composite QR and its first charge; a replay is the same subscription', async () => {
    const headers = key();
    const body = { priceId: subscriptionPrice, journey: 'JOURNEY_3', payer };
    const created = await create(body, headers);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'AWAITING_AUTHORISATION', journey: 'JOURNEY_3', amountCents: 2_990 });
    expect(created.body.qrCopyPaste).toMatch(/^000201/);
    const charge = await shop.client.call('GET', `/charges/${created.body.firstChargeId}`);
    expect(charge.status).toBe(200);
    expect(charge.body).toMatchObject({ status: 'PENDING', amountCents: 2_990 });

    const before = await written(shop.merchantId);
    const replay = await create(body, headers);
    expect(replay.status).toBe(201);
    expect(replay.body).toMatchObject({ id: created.body.id, firstChargeId: created.body.firstChargeId });
    expect(await written(shop.merchantId)).toEqual(before);
  });

  it('POST /v1/subscriptions journey 2: 201 in the P0 envelope, read back by GET /v1/subscriptions/{id}', async () => {
    const created = await stack.api('POST', '/v1/subscriptions', {
      creds: shop.creds,
      body: { priceId: subscriptionPrice, journey: 'JOURNEY_2', payer },
      headers: { 'Idempotency-Key': crypto.randomUUID() },
    });
    expect([created.status, created.body.success]).toEqual([201, true]);
    expect(created.body.data).toMatchObject({
      status: 'AWAITING_AUTHORISATION',
      journey: 'JOURNEY_2',
      firstChargeId: null,
    });
    const read = await stack.api('GET', `/v1/subscriptions/${created.body.data.id}`, { creds: shop.creds });
    expect([read.status, read.body.data.id, read.body.data.qrCopyPaste]).toEqual([
      200,
      created.body.data.id,
      created.body.data.qrCopyPaste,
    ]);
  });

  it('POST /subscriptions/{id}/cancel of a live one: 200 CANCELLED by the merchant, the rec CANCELADA at the PSP; again → 409', async () => {
    const created = await create({ priceId: subscriptionPrice, journey: 'JOURNEY_2', payer });
    expect(created.status).toBe(201);
    const { id } = created.body;
    const cancelled = await shop.client.call('POST', `/subscriptions/${id}/cancel`, { headers: key() });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ id, status: 'CANCELLED', cancelledBy: 'MERCHANT', hasAccess: false });
    const [rows] = await stack.sequelize.query('SELECT id_rec FROM subscriptions WHERE id = :id', {
      replacements: { id },
    });
    const idRec = (rows as { id_rec: string }[])[0].id_rec;
    // The PSP's record: the payer can no longer authorise it (the sandbox's payer control refuses a rec not CRIADA).
    const approve = await fetch(`${stack.sandboxUrl}/sandbox/pix-automatico/recs/${idRec}/approve`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jornada: 'JORNADA_2' }),
    });
    expect(approve.status).toBe(409);
    expect(JSON.stringify(await approve.json())).toContain('CANCELADA');
    const again = await shop.client.call('POST', `/subscriptions/${id}/cancel`, { headers: key() });
    expect([again.status, again.body.error.code]).toEqual([409, 'SUBSCRIPTION_ALREADY_ENDED']);
  });
});

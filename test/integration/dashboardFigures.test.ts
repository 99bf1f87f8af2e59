/**
 * The dashboard's figures on the real stack: a merchant gets a mix of charges through the real
 * routes and the sandbox provider (Pix paid, boleto paid by barcode, a partial and a full refund,
 * one expired, one cancelled, one left pending), and every figure of every dashboard route must
 * equal a recomputation written here from the raw rows (charges, refunds, ledger postings), not
 * from the rollup the routes read. Revenue days are America/Sao_Paulo days, zero-filled.
 */
import crypto from 'node:crypto';
import { QueryTypes } from 'sequelize';
import type { AppClient } from '../support/appClient';
import { waitFor } from '../support/env';
import { startIntegrationStack, type IntegrationStack } from '../support/integrationStack';
import { assertLedgerInvariant } from '../support/ledger';
import { startReceiver, type Receiver } from '../support/receiver';
import { signedInMerchant } from '../support/signedIn';

jest.setTimeout(180_000);

let stack: IntegrationStack;
let client: AppClient;
let merchantId: string;
const key = () => ({ 'x-idempotency-key': `dash-${crypto.randomUUID()}` });
const spDay = (d: Date) =>
  new Intl.DateTimeFormat('en-CA', {
    timeZone: 'America/Sao_Paulo',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(d);

const signUp = (name: string) => signedInMerchant(stack, { emailPrefix: name, name: `Loja ${name}` });

async function charge(body: Record<string, unknown>): Promise<string> {
  const res = await client.call('POST', '/charges', { body: { merchantId, ...body }, headers: key() });
  expect(res.status).toBe(201);
  return res.body.id;
}

const statusOf = async (id: string) => (await client.call('GET', `/charges/${id}`)).body;

async function refund(chargeId: string, amountCents?: number) {
  const res = await client.call('POST', `/charges/${chargeId}/refund`, {
    body: { reason: 'pedido do cliente', ...(amountCents ? { amountCents } : {}) },
    headers: key(),
  });
  expect(res.status).toBe(200);
  await waitFor(
    async () => (await statusOf(chargeId)).refunds.every((r: { status: string }) => r.status !== 'PROCESSING'),
    'refund settled',
  );
}

async function rows<T extends object>(sql: string): Promise<T[]> {
  return stack.sequelize.query<T>(sql, { replacements: { m: merchantId }, type: QueryTypes.SELECT });
}

beforeAll(async () => {
  stack = await startIntegrationStack({ webhookDispatcher: true });
  ({ client, merchantId } = await signUp('dash'));
  // First, so its minute runs while the rest is seeded (1 minute is the shortest expiry allowed).
  const expiring = await charge({ amountCents: 4_321, expiresAt: new Date(Date.now() + 62_000).toISOString() });
  const pix = [
    await charge({ amountCents: 10_000 }),
    await charge({ amountCents: 2_500 }),
    await charge({ amountCents: 777 }),
  ];
  await stack.pay(pix[0], { name: 'Bia Souza', document: '52998224725' });
  await stack.pay(pix[1], { name: 'Caio Lima', document: '11144477735' });
  await stack.pay(pix[2], { name: 'Bia Souza', document: '52998224725' });
  for (const id of pix) await waitFor(async () => (await statusOf(id)).status === 'PAID', 'pix PAID');
  const boleto = await charge({
    amountCents: 9_000,
    method: 'BOLETO',
    payer: { name: 'Duda Reis', taxId: '390.533.447-05' },
  });
  const paid = await fetch(`${stack.sandboxUrl}/sandbox/boletos/${boleto}/pay`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ amountCents: 9_000 }),
  });
  expect(paid.status).toBe(200);
  await waitFor(async () => (await statusOf(boleto)).status === 'PAID', 'boleto PAID');
  await refund(pix[0], 3_000); // partial
  await refund(pix[1]); // full
  const cancelled = await charge({ amountCents: 1_234 });
  expect((await client.call('POST', `/charges/${cancelled}/cancel`, { body: {} })).status).toBe(200);
  await charge({ amountCents: 5_555 }); // stays PENDING
  await waitFor(async () => (await statusOf(expiring)).status === 'EXPIRED', 'charge EXPIRED', 90_000);
});

const receivers: Receiver[] = [];
afterAll(async () => {
  for (const r of receivers) await r.close();
  await stack?.stop();
});

afterEach(async () => {
  await assertLedgerInvariant(stack.sequelize);
});

/** The merchant's figures recomputed from the raw rows and the ledger, independently of the rollup. */
async function recompute() {
  const [c] = await rows<Record<string, string>>(
    `SELECT COUNT(*) AS created, COUNT(*) FILTER (WHERE status = 'PAID') AS paid, COUNT(*) FILTER (WHERE status IN ('EXPIRED', 'CANCELLED')) AS failed,
            COUNT(*) FILTER (WHERE status = 'PENDING') AS pending,
            COALESCE(SUM(COALESCE(boleto_paid_amount_cents, amount_cents)) FILTER (WHERE status = 'PAID' AND method = 'PIX'), 0) AS pix,
            COALESCE(SUM(COALESCE(boleto_paid_amount_cents, amount_cents)) FILTER (WHERE status = 'PAID' AND method = 'BOLETO'), 0) AS boleto
       FROM charges WHERE merchant_id = :m`,
  );
  // What the ledger says payers paid (CHARGE_PAID entries take it from the payins accounts) and the platform kept.
  const [l] = await rows<Record<string, string>>(
    `SELECT -COALESCE(SUM(p.amount_cents) FILTER (WHERE a.code LIKE 'external:%'), 0) AS sales, COALESCE(SUM(p.amount_cents) FILTER (WHERE a.code = 'platform:fees'), 0) AS fees
       FROM ledger_transactions t JOIN ledger_postings p ON p.transaction_id = t.id JOIN ledger_accounts a ON a.id = p.account_id
      WHERE t.kind = 'CHARGE_PAID' AND t.reference_id IN (SELECT id::text FROM charges WHERE merchant_id = :m)`,
  );
  const [r] = await rows<Record<string, string>>(
    `SELECT COALESCE(SUM(p.amount_cents), 0) AS refunded
       FROM ledger_transactions t JOIN ledger_postings p ON p.transaction_id = t.id JOIN ledger_accounts a ON a.id = p.account_id
      WHERE t.kind = 'REFUND_COMPLETED' AND a.code = 'external:provider_clearing' AND t.reference_id IN (SELECT id::text FROM refunds WHERE merchant_id = :m)`,
  );
  const [rc] = await rows<Record<string, string>>(
    `SELECT COUNT(DISTINCT charge_id) FILTER (WHERE status = 'SUCCEEDED') AS charges, COUNT(*) FILTER (WHERE status = 'SUCCEEDED') AS ok, COUNT(*) AS all FROM refunds WHERE merchant_id = :m`,
  );
  return {
    created: Number(c.created),
    paid: Number(c.paid),
    failed: Number(c.failed),
    pending: Number(c.pending),
    pix: Number(c.pix),
    boleto: Number(c.boleto),
    ledgerSales: Number(l.sales),
    fees: Number(l.fees),
    refunded: Number(r.refunded),
    refundedCharges: Number(rc.charges),
    refundsOk: Number(rc.ok),
    refundsAll: Number(rc.all),
  };
}

it('metrics: exactly the nine numbers, each equal to the raw rows and the ledger', async () => {
  const x = await recompute();
  const res = await client.call('GET', `/dashboard/metrics?merchantId=${merchantId}`);
  expect(res.status).toBe(200);
  expect(Object.keys(res.body).sort()).toEqual([
    'approvedPayments',
    'averageTicket',
    'boletoSales',
    'cardSales',
    'failedPayments',
    'pixSales',
    'refundedPayments',
    'totalSales',
    'totalTransactions',
  ]);
  for (const v of Object.values(res.body)) expect(typeof v).toBe('number');
  expect(x.ledgerSales).toBe(x.pix + x.boleto); // the rows and the ledger agree before we compare with either
  expect(res.body).toEqual({
    totalSales: x.ledgerSales,
    totalTransactions: x.created,
    averageTicket: Math.round(x.ledgerSales / x.paid),
    pixSales: x.pix,
    cardSales: 0,
    boletoSales: x.boleto,
    approvedPayments: x.paid,
    refundedPayments: x.refundedCharges,
    failedPayments: x.failed,
  });
  // The seeded mix, spelled out: 4 paid (3 Pix + 1 boleto), 2 refunded, 2 failed, 1 pending.
  expect(res.body).toMatchObject({
    totalTransactions: 7,
    approvedPayments: 4,
    refundedPayments: 2,
    failedPayments: 2,
    pixSales: 13_277,
    boletoSales: 9_000,
  });
  expect(x.refunded).toBe(5_500);
});

it('stats and summary agree with the recomputation; revenue is 30 zero-filled São Paulo days', async () => {
  const x = await recompute();
  const stats = (await client.call('GET', `/dashboard/stats?merchantId=${merchantId}`)).body;
  const [bal] = await rows<{ b: string }>(
    `SELECT COALESCE(SUM(p.amount_cents), 0) AS b FROM ledger_postings p JOIN ledger_accounts a ON a.id = p.account_id WHERE a.code = 'merchant:' || :m || ':available'`,
  );
  expect(stats).toMatchObject({
    merchantId,
    // The platform account model: the ledger's balances, no PSP reading.
    balance: { availableCents: Number(bal.b), reservedCents: 0, blockedCents: 0, source: 'ledger', psp: null },
    charges: { total: x.created, pending: x.pending, paid: x.paid, failed: x.failed, refunded: x.refundedCharges },
    amounts: {
      salesCents: x.ledgerSales,
      feesCents: x.fees,
      refundedCents: x.refunded,
      netCents: x.ledgerSales - x.fees - x.refunded,
    },
  });
  const today = spDay(new Date());
  expect(stats.today.day).toBe(today);

  // Everything was seeded today, so the 7-day period holds all of it.
  const summary = await client.call(
    'GET',
    `/dashboard/summary?merchantId=${merchantId}&period=7d&topLimit=2&interactionsLimit=5`,
  );
  expect(summary.status).toBe(200);
  expect(summary.body).toMatchObject({ period: '7d', timezone: 'America/Sao_Paulo', to: today });
  expect(summary.body.totals).toEqual({
    salesCents: x.ledgerSales,
    feesCents: x.fees,
    refundedCents: x.refunded,
    netCents: x.ledgerSales - x.fees - x.refunded,
    transactions: x.created,
    approvedPayments: x.paid,
    failedPayments: x.failed,
    refunds: x.refundsOk,
    averageTicketCents: Math.round(x.ledgerSales / x.paid),
    conversionRate: Math.round((x.paid / x.created) * 10_000) / 10_000,
  });
  expect(summary.body.byMethod).toEqual([
    { method: 'PIX', salesCents: x.pix, payments: 3 },
    { method: 'BOLETO', salesCents: x.boleto, payments: 1 },
    { method: 'CARD', salesCents: 0, payments: 0 },
  ]);
  // Top payers from the payer snapshots: Bia paid 10 000 + 777 by Pix; the boleto's payer 9 000.
  const payers = await rows<{ doc: string; amount: string }>(
    `SELECT COALESCE(NULLIF(payer_snapshot->>'document', ''), payer_snapshot->>'name') AS doc, SUM(COALESCE(boleto_paid_amount_cents, amount_cents)) AS amount
       FROM charges WHERE merchant_id = :m AND status = 'PAID' AND payer_snapshot IS NOT NULL GROUP BY 1 ORDER BY 2 DESC LIMIT 2`,
  );
  expect(summary.body.topPayers.map((p: { amountCents: number }) => p.amountCents)).toEqual(
    payers.map((p) => Number(p.amount)),
  );
  expect(summary.body.topPayers[0]).toMatchObject({
    name: 'Bia Souza',
    payments: 2,
    amountCents: 10_777,
    document: '529******25',
  });
  expect(summary.body.recentInteractions).toHaveLength(5);
  expect(summary.body.recentInteractions).toEqual(
    (await client.call('GET', `/dashboard/interactions?merchantId=${merchantId}&limit=5`)).body.data,
  );

  for (const [path, expected] of [
    [`/dashboard/revenue?merchantId=${merchantId}`, 30],
    [`/dashboard/revenue-history?merchantId=${merchantId}&period=90d`, 90],
  ] as const) {
    const revenue = (await client.call('GET', path)).body;
    expect(revenue.days).toHaveLength(expected);
    expect(revenue.to).toBe(today);
    expect(revenue.days.at(-1).day).toBe(today);
    // Consecutive calendar days, oldest first.
    for (let i = 1; i < revenue.days.length; i++)
      expect(Date.parse(revenue.days[i].day) - Date.parse(revenue.days[i - 1].day)).toBe(86_400_000);
    // Per day, recomputed from paid_at / settled_at in São Paulo time.
    const paid = await rows<{ paid_at: Date; amount: string; fee: string }>(
      `SELECT paid_at, COALESCE(boleto_paid_amount_cents, amount_cents) AS amount, COALESCE(boleto_paid_fee_cents, fee_cents) AS fee FROM charges WHERE merchant_id = :m AND status = 'PAID'`,
    );
    const refunds = await rows<{ settled_at: Date; amount_cents: string }>(
      `SELECT settled_at, amount_cents FROM refunds WHERE merchant_id = :m AND status = 'SUCCEEDED'`,
    );
    for (const d of revenue.days) {
      const sales = paid.filter((p) => spDay(p.paid_at) === d.day).reduce((s, p) => s + Number(p.amount), 0);
      const fees = paid.filter((p) => spDay(p.paid_at) === d.day).reduce((s, p) => s + Number(p.fee), 0);
      const refunded = refunds
        .filter((r) => spDay(r.settled_at) === d.day)
        .reduce((s, r) => s + Number(r.amount_cents), 0);
      expect(d).toEqual({
        day: d.day,
        salesCents: sales,
        feesCents: fees,
        refundedCents: refunded,
        netCents: sales - fees - refunded,
        payments: paid.filter((p) => spDay(p.paid_at) === d.day).length,
      });
    }
    expect(revenue.days.filter((d: { salesCents: number }) => d.salesCents === 0).length).toBe(expected - 1);
  }
});

it('transactions: paginated and filtered, totals equal to counts of the rows', async () => {
  const all = await client.call('GET', `/dashboard/transactions?merchantId=${merchantId}&limit=3`);
  expect(all.status).toBe(200);
  expect(all.body.pagination).toEqual({ total: 7, limit: 3, offset: 0, hasMore: true });
  const page3 = (await client.call('GET', `/dashboard/transactions?merchantId=${merchantId}&limit=3&offset=6`)).body;
  expect(page3.pagination).toEqual({ total: 7, limit: 3, offset: 6, hasMore: false });
  expect(page3.data).toHaveLength(1);
  const paid = (await client.call('GET', `/dashboard/transactions?merchantId=${merchantId}&status=PAID`)).body;
  expect(paid.pagination.total).toBe(4);
  const refunded = paid.data.reduce((s: number, t: { refundedAmountCents: number }) => s + t.refundedAmountCents, 0);
  expect(refunded).toBe((await recompute()).refunded);
  expect(
    (await client.call('GET', `/dashboard/transactions?merchantId=${merchantId}&status=CANCELED`)).body.data.map(
      (t: { amountCents: number }) => t.amountCents,
    ),
  ).toEqual([1_234]);
  expect(
    (await client.call('GET', `/dashboard/transactions?merchantId=${merchantId}&method=BOLETO`)).body.data,
  ).toMatchObject([{ method: 'BOLETO', paidAmountCents: 9_000, status: 'PAID' }]);
  expect(
    (await client.call('GET', `/dashboard/transactions?merchantId=${merchantId}&method=CARD`)).body.pagination.total,
  ).toBe(0);
  const today = spDay(new Date());
  expect(
    (await client.call('GET', `/dashboard/transactions?merchantId=${merchantId}&from=${today}&to=${today}`)).body
      .pagination.total,
  ).toBe(7);
  expect(
    (await client.call('GET', `/dashboard/transactions?merchantId=${merchantId}&to=2020-01-01`)).body.pagination.total,
  ).toBe(0);
});

it('interactions: every event once, newest first; health from the deliveries and provider callbacks', async () => {
  const x = await recompute();
  const first = (await client.call('GET', `/dashboard/interactions?merchantId=${merchantId}&limit=100`)).body;
  // One created event per charge, one paid/expired/canceled per settled charge, one per refund.
  expect(first.pagination.total).toBe(x.created + x.paid + x.failed + x.refundsAll);
  expect(first.data).toHaveLength(first.pagination.total);
  const times = first.data.map((e: { occurredAt: string }) => Date.parse(e.occurredAt));
  expect([...times].sort((a, b) => b - a)).toEqual(times);
  const count = (type: string) => first.data.filter((e: { type: string }) => e.type === type).length;
  expect([
    count('charge.created'),
    count('charge.paid'),
    count('charge.expired'),
    count('charge.canceled'),
    count('refund.succeeded'),
  ]).toEqual([7, 4, 1, 1, 2]);
  const second = (await client.call('GET', `/dashboard/interactions?merchantId=${merchantId}&limit=4&offset=4`)).body;
  expect(second.data).toEqual(first.data.slice(4, 8));

  const health = (await client.call('GET', `/dashboard/health?merchantId=${merchantId}`)).body;
  const [last] = await rows<{ received_at: Date }>(
    `SELECT pe.received_at FROM provider_events pe JOIN charges c ON c.provider_charge_id = pe.provider_charge_id WHERE c.merchant_id = :m ORDER BY pe.received_at DESC LIMIT 1`,
  );
  expect(health).toMatchObject({
    merchantId,
    status: 'NO_TRAFFIC',
    webhooks: { delivered: 0, failed: 0, successRate: null },
    failingEndpoints: [],
  });
  expect(health.lastProviderCallback?.receivedAt ?? null).toBe(last ? last.received_at.toISOString() : null);
});

it('the rollup equals the raw rows for every merchant and day (the triggers miss nothing)', async () => {
  const diff = await stack.sequelize.query(
    `WITH raw AS (
       SELECT merchant_id, (created_at AT TIME ZONE 'America/Sao_Paulo')::date AS day, method, COUNT(*) AS created, COUNT(*) FILTER (WHERE status IN ('EXPIRED','CANCELLED')) AS failed, 0 AS paid, 0 AS paid_cents, 0 AS refunds
         FROM charges GROUP BY 1, 2, 3
       UNION ALL
       SELECT merchant_id, (paid_at AT TIME ZONE 'America/Sao_Paulo')::date, method, 0, 0, COUNT(*), SUM(COALESCE(boleto_paid_amount_cents, amount_cents)), 0 FROM charges WHERE status = 'PAID' GROUP BY 1, 2, 3
       UNION ALL
       SELECT r.merchant_id, (r.settled_at AT TIME ZONE 'America/Sao_Paulo')::date, c.method, 0, 0, 0, 0, SUM(r.amount_cents) FROM refunds r JOIN charges c ON c.id = r.charge_id WHERE r.status = 'SUCCEEDED' GROUP BY 1, 2, 3),
     expected AS (SELECT merchant_id, day, method, SUM(created) AS created, SUM(failed) AS failed, SUM(paid) AS paid, SUM(paid_cents) AS paid_cents, SUM(refunds) AS refunded FROM raw GROUP BY 1, 2, 3),
     actual AS (SELECT merchant_id, day, method, created_count AS created, failed_count AS failed, paid_count AS paid, paid_cents, refunded_cents AS refunded FROM dashboard_daily
                 WHERE created_count <> 0 OR failed_count <> 0 OR paid_count <> 0 OR paid_cents <> 0 OR refunded_cents <> 0 OR refund_count <> 0)
     (SELECT * FROM expected EXCEPT SELECT * FROM actual) UNION ALL (SELECT * FROM actual EXCEPT SELECT * FROM expected)`,
    { type: QueryTypes.SELECT },
  );
  expect(diff).toEqual([]);
});

it('every bad query is 400 VALIDATION_ERROR; another merchant is 404 in the envelope; no token is 401', async () => {
  const bad = [
    `/dashboard/metrics`,
    `/dashboard/metrics?merchantId=abc`,
    `/dashboard/metrics?merchantId=${merchantId}&extra=1`,
    `/dashboard/summary?merchantId=${merchantId}&period=14d`,
    `/dashboard/summary?merchantId=${merchantId}&topLimit=0`,
    `/dashboard/summary?merchantId=${merchantId}&interactionsLimit=abc`,
    `/dashboard/summary?merchantId=${merchantId}&topLimit=1.5`,
    `/dashboard/revenue-history?merchantId=${merchantId}&period=`,
    `/dashboard/interactions?merchantId=${merchantId}&limit=101`,
    `/dashboard/transactions?merchantId=${merchantId}&status=REFUNDED`,
    `/dashboard/transactions?merchantId=${merchantId}&from=2026-13-01`,
    `/dashboard/transactions?merchantId=${merchantId}&from=2026-02-02&to=2026-02-01`,
    `/dashboard/transactions?merchantId=${merchantId}&offset=-1`,
    `/dashboard/health?merchantId=${merchantId}&merchantId=${merchantId}`,
  ];
  for (const path of bad) {
    const res = await client.call('GET', path);
    expect([path, res.status, res.body?.error?.code]).toEqual([path, 400, 'VALIDATION_ERROR']);
  }
  const other = await signUp('other');
  for (const route of [
    'metrics',
    'summary',
    'stats',
    'interactions',
    'revenue',
    'revenue-history',
    'transactions',
    'health',
  ]) {
    const res = await other.client.call('GET', `/dashboard/${route}?merchantId=${merchantId}`);
    expect([route, res.status, Object.keys(res.body), res.body.error.code]).toEqual([
      route,
      404,
      ['error'],
      'MERCHANT_NOT_FOUND',
    ]);
    const own = await other.client.call('GET', `/dashboard/${route}?merchantId=${other.merchantId}`);
    expect([route, own.status]).toEqual([route, 200]);
  }
  // The other merchant, with nothing yet, sees zeros, not ours.
  expect((await other.client.call('GET', `/dashboard/metrics?merchantId=${other.merchantId}`)).body).toEqual({
    totalSales: 0,
    totalTransactions: 0,
    averageTicket: 0,
    pixSales: 0,
    cardSales: 0,
    boletoSales: 0,
    approvedPayments: 0,
    refundedPayments: 0,
    failedPayments: 0,
  });
  const anon = await fetch(`${stack.apiUrl}/dashboard/metrics?merchantId=${merchantId}`);
  expect(anon.status).toBe(401);
});

it('health: one endpoint delivering, one answering 500 (retrying): DEGRADED at 0.5, the failing one listed, the last provider callback named', async () => {
  const shop = await signUp('hooks');
  const cred = await shop.client.call('POST', '/dashboard/credentials', {
    body: { merchantId: shop.merchantId, name: 'hooks', scopes: ['webhooks:write'] },
  });
  expect(cred.status).toBe(201);
  const creds = { merchantId: shop.merchantId, clientId: cred.body.clientId, clientSecret: cred.body.clientSecret };
  const [good, bad] = [await startReceiver(), await startReceiver()];
  receivers.push(good, bad);
  bad.status = 500;
  for (const r of [good, bad])
    expect(
      (await stack.api('POST', '/sellers/webhooks', { creds, body: { url: `${r.url}/hook`, events: ['charge.paid'] } }))
        .status,
    ).toBe(201);
  const created = await shop.client.call('POST', '/charges', {
    body: { merchantId: shop.merchantId, amountCents: 1_500 },
    headers: key(),
  });
  await stack.pay(created.body.id);
  const deliveries = () =>
    stack.sequelize.query<{ status: string; attempts: number; url: string; last_status_code: number | null }>(
      `SELECT status, attempts, url, last_status_code FROM webhook_deliveries WHERE merchant_id = :m ORDER BY url`,
      { replacements: { m: shop.merchantId }, type: QueryTypes.SELECT },
    );
  await waitFor(
    async () => {
      const rows = await deliveries();
      return (
        rows.some((r) => r.status === 'SUCCEEDED') &&
        rows.some((r) => r.status === 'PENDING' && r.attempts > 0 && r.last_status_code === 500)
      );
    },
    'one delivery succeeded and one failed an attempt',
    60_000,
  );
  const health = await shop.client.call('GET', `/dashboard/health?merchantId=${shop.merchantId}`);
  expect(health.status).toBe(200);
  // Recomputed from the rows: delivered / (delivered + gave up + retrying after a failure).
  const rows = await deliveries();
  const delivered = rows.filter((r) => r.status === 'SUCCEEDED').length;
  const failing = rows.filter((r) => r.status === 'FAILED' || (r.status === 'PENDING' && r.attempts > 0)).length;
  expect(health.body.webhooks).toMatchObject({
    delivered,
    failed: 0,
    retrying: failing,
    successRate: delivered / (delivered + failing),
  });
  expect(health.body.status).toBe('DEGRADED');
  expect(health.body.endpoints).toEqual({ active: 2, disabled: 0 });
  expect(health.body.failingEndpoints).toEqual([
    expect.objectContaining({ url: `${bad.url}/hook`, active: true, failedDeliveries: 1, lastStatusCode: 500 }),
  ]);
  const [last] = await stack.sequelize.query<{ received_at: Date }>(
    `SELECT pe.received_at FROM provider_events pe JOIN charges c ON c.provider_charge_id = pe.provider_charge_id WHERE c.merchant_id = :m ORDER BY pe.received_at DESC LIMIT 1`,
    { replacements: { m: shop.merchantId }, type: QueryTypes.SELECT },
  );
  expect(health.body.lastProviderCallback).toEqual(
    last ? expect.objectContaining({ chargeId: created.body.id, receivedAt: last.received_at.toISOString() }) : null,
  );
  bad.status = 200; // let the retry succeed, so the stack stops with nothing pending
});

/**
 * GET /metrics, /metrics/perf-db and /webhooks/pix-gateway/health on the real stack. The
 * Prometheus text is read with parse-prometheus-text-format (a parser we did not write), and the
 * business gauges are compared with SQL counts of the same tables.
 */
import crypto from 'node:crypto';
import { QueryTypes } from 'sequelize';
import parsePrometheusTextFormat, { type PromFamily } from 'parse-prometheus-text-format';
import { signProviderCallback } from '../../core/pix/providerSignature';
import { chargeWorkflowId } from '../../workflows/charges/definitions';
import { startIntegrationStack, type IntegrationStack } from '../support/integrationStack';
import { assertLedgerInvariant } from '../support/ledger';
import { waitFor } from '../support/env';
import { fundByPaidCharge, items, payoutMerchant, signedCall, waitForBatchEnd } from '../support/payouts';
import type { MerchantCredentials } from '../../db/identity/merchantAdmin';

/** The route template API Pix notifications are counted under (api/charges/pixApiCallbacks/router.ts). */
const PIX_API_NOTIFICATION_ROUTE = '/webhooks/pix-api/:secret/pix';

jest.setTimeout(120_000);

let stack: IntegrationStack;
let seller: MerchantCredentials;
let paidChargeId: string;

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/**
 * The scrape, parsed. parse-prometheus-text-format folds a labelled histogram into one sample
 * without its labels (it handles only unlabelled ones), so histograms are read twice: as
 * declared (to check the TYPE), and with their TYPE line as `untyped`, which makes the parser
 * return every _bucket/_sum/_count line with its labels (`samples`, merged by sample name).
 */
async function scrape(url = stack.apiUrl, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}/metrics`, { headers });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  const families = new Map(parsePrometheusTextFormat(text).map((f) => [f.name, f]));
  const samples = new Map<string, PromFamily>();
  for (const f of parsePrometheusTextFormat(text.replace(/^# TYPE (\S+) histogram$/gm, '# TYPE $1 untyped'))) {
    const seen = samples.get(f.name);
    if (seen) seen.metrics.push(...f.metrics);
    else samples.set(f.name, f);
  }
  return { text, families, samples };
}

function family(families: Map<string, PromFamily>, name: string): PromFamily {
  const f = families.get(name);
  if (!f) throw new Error(`${name} is not in /metrics`);
  return f;
}

/** Value of the gauge/counter sample whose labels include `labels`; 0 when absent. */
function valueOf(f: PromFamily, labels: Record<string, string> = {}): number {
  const matching = f.metrics.filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return matching.reduce((sum, m) => sum + Number(m.value), 0);
}

async function sqlCounts(sql: string): Promise<Record<string, number>> {
  const rows = await stack.sequelize.query<{ k: string; n: string }>(sql, { type: QueryTypes.SELECT });
  return Object.fromEntries(rows.map((r) => [r.k, Number(r.n)]));
}

async function sendForged(body: string, signature: string) {
  return fetch(`${stack.apiUrl}/webhooks/pix-gateway`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-provider-timestamp': String(Date.now()),
      'x-provider-signature': signature,
    },
    body,
  });
}

beforeAll(async () => {
  // A stack of its own, not the worker's shared one (test/support/sharedStack.ts): it counts platform-wide figures: no other file's data may change them meanwhile.
  stack = await startIntegrationStack();
  seller = await stack.createMerchant({ name: 'Loja Métricas', document: '11144477735' });
  // A charge created and paid in the sandbox (its callback reaches our API), a pending one, a 404.
  const created = await stack.api('POST', '/sellers/pix', {
    creds: seller,
    body: { amountCents: 2_500 },
    headers: { 'x-idempotency-key': crypto.randomUUID() },
  });
  expect(created.status).toBe(201);
  paidChargeId = created.body.id;
  await stack.pay(paidChargeId);
  await waitFor(
    async () => (await stack.api('GET', `/sellers/pix/${paidChargeId}`, { creds: seller })).body.status === 'PAID',
    'charge paid',
  );
  expect((await stack.api('POST', '/sellers/pix', { creds: seller, body: { amountCents: 700 } })).status).toBe(201);
  expect((await stack.api('GET', `/sellers/pix/${crypto.randomUUID()}`, { creds: seller })).status).toBe(404);
  expect((await stack.api('GET', '/no/such/route')).status).toBe(404);
});

afterAll(async () => {
  await stack?.stop();
});

afterEach(async () => {
  await assertLedgerInvariant(stack.sequelize);
});

describe('GET /metrics', () => {
  it('counts HTTP requests by route template and status, with latency histograms, and no ids in any label', async () => {
    // The sandbox's callback for the paid charge may come after the charge run saw it paid. It is
    // the API Pix notification, counted under its template (the secret never a label).
    const { families, samples } = await waitFor(async () => {
      const s = await scrape();
      return valueOf(family(s.families, 'gateway_http_requests_total'), {
        method: 'POST',
        route: PIX_API_NOTIFICATION_ROUTE,
        status: '200',
      }) >= 1
        ? s
        : null;
    }, 'the sandbox callback');
    const requests = family(families, 'gateway_http_requests_total');
    expect(requests.type).toBe('COUNTER');
    expect(valueOf(requests, { method: 'POST', route: '/sellers/pix', status: '201' })).toBe(2);
    expect(valueOf(requests, { method: 'GET', route: '/sellers/pix/:id', status: '200' })).toBeGreaterThanOrEqual(1);
    expect(valueOf(requests, { method: 'GET', route: '/sellers/pix/:id', status: '404' })).toBe(1);
    expect(valueOf(requests, { method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    // The sandbox's callback for the paid charge (API Pix's notification).
    expect(
      valueOf(requests, { method: 'POST', route: PIX_API_NOTIFICATION_ROUTE, status: '200' }),
    ).toBeGreaterThanOrEqual(1);

    expect(family(families, 'gateway_http_request_duration_seconds').type).toBe('HISTOGRAM');
    const created = { method: 'POST', route: '/sellers/pix', status: '201' };
    expect(valueOf(family(samples, 'gateway_http_request_duration_seconds_count'), created)).toBe(2);
    expect(valueOf(family(samples, 'gateway_http_request_duration_seconds_sum'), created)).toBeGreaterThan(0);
    const buckets = family(samples, 'gateway_http_request_duration_seconds_bucket').metrics.filter((m) =>
      Object.entries(created).every(([k, v]) => m.labels?.[k] === v),
    );
    expect(buckets.map((b) => b.labels?.le)).toEqual([
      '0.005',
      '0.01',
      '0.025',
      '0.05',
      '0.1',
      '0.25',
      '0.5',
      '1',
      '2.5',
      '5',
      '10',
      '+Inf',
    ]);
    expect(buckets.at(-1)?.value).toBe('2');
    // Cumulative: never decreasing.
    expect(buckets.map((b) => Number(b.value))).toEqual([...buckets.map((b) => Number(b.value))].sort((a, b) => a - b));

    for (const f of samples.values()) {
      for (const m of f.metrics) {
        for (const [name, value] of Object.entries(m.labels ?? {})) {
          expect({ metric: f.name, name, value, uuid: UUID.test(value) }).toEqual({
            metric: f.name,
            name,
            value,
            uuid: false,
          });
          expect(name).not.toMatch(/merchant/i);
          expect(value).not.toContain(paidChargeId);
          expect(value).not.toContain(seller.clientId);
        }
      }
    }
  });

  it('reports charges, payouts, ledger totals, outbox and deliveries as the database has them', async () => {
    // A payout batch of one item, funded by a paid charge.
    const payer = await payoutMerchant(stack, { name: 'Pagadora Métricas' });
    await fundByPaidCharge(stack, payer, 5_000);
    const batch = await signedCall(stack, payer, 'POST', '/v1/payouts/batches', {
      idempotencyKey: crypto.randomUUID(),
      items: items(1, { amountCents: 1_000 }),
    });
    expect(batch.status).toBe(201);
    await waitForBatchEnd(stack, payer, batch.body.batchId);

    // An event as a worker of the previous release records it (no deliveries, left to the dispatcher,
    // and no dispatcher runs in this stack), a second old.
    await stack.sequelize.query(
      `INSERT INTO outbox_events (id, dedup_key, merchant_id, type, aggregate_type, aggregate_id, payload, created_at)
       VALUES (:id, :id, :merchantId, 'charge.paid', 'charge', :id, '{}', now() - interval '1 second')`,
      { replacements: { id: crypto.randomUUID(), merchantId: payer.merchantId } },
    );
    // A new app on the same database: its gauge cache is empty, so this scrape reads the tables now.
    const fresh = await stack.extraApi({});
    try {
      const { families } = await scrape(fresh.url);
      const charges = family(families, 'gateway_charges');
      expect(charges.type).toBe('GAUGE');
      const byStatus = await sqlCounts('SELECT status AS k, count(*) AS n FROM charges GROUP BY status');
      expect(byStatus.PAID).toBeGreaterThanOrEqual(2);
      for (const status of ['PENDING', 'PAID', 'EXPIRED', 'CANCELLED'])
        expect({ status, n: valueOf(charges, { status }) }).toEqual({ status, n: byStatus[status] ?? 0 });
      expect(valueOf(charges, { status: 'PAID', method: 'PIX' })).toBe(byStatus.PAID);

      const payoutItems = await sqlCounts('SELECT status AS k, count(*) AS n FROM payout_items GROUP BY status');
      expect(payoutItems.PAID).toBe(1);
      expect(valueOf(family(families, 'gateway_payout_items'), { status: 'PAID' })).toBe(1);

      const ledger = await sqlCounts('SELECT kind AS k, sum(balance_cents) AS n FROM ledger_accounts GROUP BY kind');
      const balances = family(families, 'gateway_ledger_balance_cents');
      for (const kind of Object.keys(ledger))
        expect({ kind, cents: valueOf(balances, { kind }) }).toEqual({ kind, cents: ledger[kind] });
      expect(ledger.MERCHANT_AVAILABLE).toBeGreaterThan(0);
      // The double-entry books balance across kinds.
      expect(Object.values(ledger).reduce((a, b) => a + b, 0)).toBe(0);

      const [outbox] = await stack.sequelize.query<{ n: string }>(
        `SELECT (SELECT count(*) FROM outbox_events WHERE dispatched_at IS NULL)
           + (SELECT count(*) FROM webhook_deliveries WHERE NOT workflow_started AND status = 'PENDING') AS n`,
        { type: QueryTypes.SELECT },
      );
      // Events are born dispatched (with their deliveries); the one undispatched is the older worker's, seconds old.
      expect(valueOf(family(families, 'gateway_outbox_pending_events'))).toBe(Number(outbox!.n));
      expect(Number(outbox!.n)).toBeGreaterThan(0);
      expect(valueOf(family(families, 'gateway_outbox_oldest_pending_age_seconds'))).toBeGreaterThan(0);
      expect(families.has('gateway_webhook_deliveries')).toBe(true);
      expect(families.has('gateway_withdrawals')).toBe(true);
    } finally {
      await fresh.close();
    }
  });

  it("counts failed Temporal calls of the API's client by operation and error class", async () => {
    const created = await stack.api('POST', '/sellers/pix', { creds: seller, body: { amountCents: 900 } });
    expect(created.status).toBe(201);
    // Close the charge's run behind the API's back: its signal on the next callback fails (workflow not found).
    await stack.temporal.workflow.getHandle(chargeWorkflowId(created.body.id)).terminate('metrics test');
    const row = await stack.sequelize.query<{ provider_charge_id: string; pix_txid: string | null }>(
      'SELECT provider_charge_id, pix_txid FROM charges WHERE id = $1',
      {
        bind: [created.body.id],
        type: QueryTypes.SELECT,
      },
    );
    const body = JSON.stringify({
      eventId: `evt_${crypto.randomUUID()}`,
      type: 'charge.paid',
      occurredAt: new Date().toISOString(),
      charge: {
        id: row[0]!.provider_charge_id,
        reference: created.body.id,
        status: 'PAID',
        amountCents: 900,
        endToEndId: `E${crypto.randomBytes(15).toString('hex')}`,
        paidAt: new Date().toISOString(),
        payer: null,
      },
    });
    const before = valueOf(family((await scrape()).families, 'gateway_temporal_client_errors_total'), {
      operation: 'signal',
      error: 'WorkflowNotFoundError',
    });
    const ts = Date.now();
    const res = await fetch(`${stack.apiUrl}/webhooks/pix-gateway`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-provider-timestamp': String(ts),
        'x-provider-signature': signProviderCallback(body, ts, stack.callbackSecret),
      },
      body,
    });
    expect(res.status).toBe(200);
    const after = await waitFor(async () => {
      const n = valueOf(family((await scrape()).families, 'gateway_temporal_client_errors_total'), {
        operation: 'signal',
        error: 'WorkflowNotFoundError',
      });
      return n > before ? n : null;
    }, 'the failed signal to be counted');
    expect(after).toBe(before + 1);
  });

  it('answers /metrics/perf-db with the pool and the slowest queries, or a note when pg_stat_statements is off', async () => {
    const res = await stack.api('GET', '/metrics/perf-db');
    expect(res.status).toBe(200);
    expect(res.body.pool).toEqual({
      size: expect.any(Number),
      available: expect.any(Number),
      using: expect.any(Number),
      opening: expect.any(Number),
      waiting: expect.any(Number),
    });
    expect(res.body.pool.size).toBeGreaterThanOrEqual(1);
    // The pool counts a connection from the moment it starts opening it (this failed once under load as size = available + using).
    expect(res.body.pool.size).toBe(res.body.pool.available + res.body.pool.using + res.body.pool.opening);
    expect(res.body.pool.opening).toBeGreaterThanOrEqual(0);
    const [ext] = await stack.sequelize.query<{ on: boolean }>(
      "SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_stat_statements') AS on",
      { type: QueryTypes.SELECT },
    );
    if (ext!.on) {
      expect(Array.isArray(res.body.slowestQueries)).toBe(true);
      expect(res.body.slowestQueries.length).toBeLessThanOrEqual(10);
    } else {
      expect(res.body.slowestQueries).toBeNull();
      expect(res.body.note).toMatch(/pg_stat_statements is not enabled/);
    }
  });
});

describe('GET /webhooks/pix-gateway/health', () => {
  it('reports the last valid callback and counts a forged one as a signature failure', async () => {
    const first = await stack.api('GET', '/webhooks/pix-gateway/health');
    expect(first.status).toBe(200);
    // The sandbox's callback for the charge paid in beforeAll.
    expect(first.body.lastCallbackAt).not.toBeNull();
    expect(first.body.callbacksLastHour).toBeGreaterThanOrEqual(1);

    const body = JSON.stringify({
      eventId: `evt_${crypto.randomUUID()}`,
      type: 'charge.paid',
      charge: { id: 'forged' },
    });
    const forged = await sendForged(body, 'a'.repeat(64));
    expect(forged.status).toBe(401);
    expect(((await forged.json()) as { error: { code: string } }).error.code).toBe('INVALID_SIGNATURE');
    const afterForged = await stack.api('GET', '/webhooks/pix-gateway/health');
    expect(afterForged.body.signatureFailuresLastHour).toBe(first.body.signatureFailuresLastHour + 1);

    // A validly signed callback (for no charge of ours) moves lastCallbackAt.
    const valid = JSON.stringify({
      eventId: `evt_${crypto.randomUUID()}`,
      type: 'charge.paid',
      occurredAt: new Date().toISOString(),
      charge: {
        id: `prov_${crypto.randomUUID()}`,
        status: 'PAID',
        amountCents: 100,
        endToEndId: null,
        paidAt: new Date().toISOString(),
        payer: null,
      },
    });
    const sentAt = Date.now();
    const ok = await fetch(`${stack.apiUrl}/webhooks/pix-gateway`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-provider-timestamp': String(sentAt),
        'x-provider-signature': signProviderCallback(valid, sentAt, stack.callbackSecret),
      },
      body: valid,
    });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { received: boolean }).received).toBe(true);
    const afterValid = await stack.api('GET', '/webhooks/pix-gateway/health');
    expect(Date.parse(afterValid.body.lastCallbackAt)).toBeGreaterThanOrEqual(sentAt - 1000);
    expect(afterValid.body.callbacksLastHour).toBe(first.body.callbacksLastHour + 1);

    // Another API process on the same database sees the same figures once this one has flushed.
    const other = await stack.extraApi({});
    try {
      const seen = await waitFor(async () => {
        const res = await fetch(`${other.url}/webhooks/pix-gateway/health`);
        const b = (await res.json()) as { signatureFailuresLastHour: number; callbacksLastHour: number };
        return b.signatureFailuresLastHour === afterValid.body.signatureFailuresLastHour &&
          b.callbacksLastHour === afterValid.body.callbacksLastHour
          ? b
          : null;
      }, 'the counts shared through the database');
      expect(seen.signatureFailuresLastHour).toBe(afterForged.body.signatureFailuresLastHour);
    } finally {
      await other.close();
    }
  });
});

describe('access to /metrics and /metrics/perf-db', () => {
  const token = crypto.randomBytes(24).toString('hex');

  it('in production without METRICS_TOKEN: 404, as if the routes did not exist', async () => {
    const prod = await stack.extraApi({ production: true, metricsToken: null });
    try {
      for (const path of ['/metrics', '/metrics/perf-db']) {
        const res = await fetch(`${prod.url}${path}`);
        expect(res.status).toBe(404);
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
      }
    } finally {
      await prod.close();
    }
  });

  it.each([true, false])(
    'with METRICS_TOKEN set (production %s): 401 without or with a wrong bearer, 200 with it',
    async (production) => {
      const api = await stack.extraApi({ production, metricsToken: token });
      try {
        for (const path of ['/metrics', '/metrics/perf-db']) {
          for (const auth of [undefined, 'Bearer wrong', `Bearer ${token}x`, token]) {
            const res = await fetch(`${api.url}${path}`, { headers: auth ? { authorization: auth } : {} });
            expect({ path, auth, status: res.status }).toEqual({ path, auth, status: 401 });
            expect(((await res.json()) as { error: { code: string } }).error.code).toBe('INVALID_METRICS_TOKEN');
          }
          const ok = await fetch(`${api.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
          expect(ok.status).toBe(200);
        }
      } finally {
        await api.close();
      }
    },
  );
});

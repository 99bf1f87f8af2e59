/**
 * Pix charges through API Pix on the real stack (the sandbox PSP over mutual TLS). A
 * charge is a cob; the PSP's notification (POST <registered URL>/pix) is a claim that goes through
 * the one claim path, and nothing is credited until GET /cob and GET /pix/{e2eid} confirm it. The
 * route's secret, its envelope for bad input, a notification for no charge of ours, a replay, a
 * charge issued through the provider's own API before the switch, which keeps settling there, and
 * refunds: a devolução through API Pix, followed to DEVOLVIDO (settled) or NAO_REALIZADO (released).
 */
import crypto from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import { QueryTypes } from 'sequelize';
import { HttpPixProvider } from '../../activities/provider/httpPixProvider';
import { accounts } from '../../core/ledger/accounts';
import { devolucaoIdFor, txidFor } from '../../core/pix/apiPixIds';
import { Charge } from '../../db/models';
import type { MerchantCredentials } from '../../db/identity/merchantAdmin';
import { waitFor } from '../support/env';
import { assertLedgerInvariant, balance } from '../support/ledger';
import { startIntegrationStack, type IntegrationStack } from '../support/integrationStack';
import { recordIssuedSecrets } from '../support/testLogs';
import { signedInMerchant } from '../support/signedIn';

jest.setTimeout(120_000);

let stack: IntegrationStack;
let seller: MerchantCredentials;

beforeAll(async () => {
  stack = await startIntegrationStack();
  seller = await stack.createMerchant({ name: 'Loja API Pix', document: '11144477735' });
});

afterAll(async () => {
  await stack?.stop();
});

afterEach(async () => {
  await assertLedgerInvariant(stack.sequelize);
});

async function createCharge(amountCents = 4_321) {
  const res = await stack.api('POST', '/sellers/pix', {
    creds: seller,
    body: { amountCents, description: 'Pedido' },
    headers: { 'x-idempotency-key': `key-${crypto.randomUUID()}` },
  });
  expect(res.status).toBe(201);
  return res.body as { id: string; pix: { copyPaste: string } };
}

async function waitForStatus(id: string, status: string) {
  return waitFor(async () => {
    const res = await stack.api('GET', `/sellers/pix/${id}`, { creds: seller });
    return res.body?.status === status ? res.body : null;
  }, `charge ${id} to become ${status}`);
}

function notify(body: unknown, secret = stack.workerEnv.PIX_WEBHOOK_SECRET, raw?: string, apiUrl = stack.apiUrl) {
  return fetch(`${apiUrl}/webhooks/pix-api/${secret}/pix`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: raw ?? JSON.stringify(body),
  });
}

async function json(res: Response) {
  return { status: res.status, body: (await res.json()) as any };
}

async function paidTransactions(chargeId: string): Promise<number> {
  const [row] = await stack.sequelize.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ledger_transactions WHERE movement_key = :k`,
    { replacements: { k: `charge-paid:${chargeId}` }, type: QueryTypes.SELECT },
  );
  return row.n;
}

async function events(id: string) {
  return stack.sequelize.query<{ type: string; outcome: string; provider_charge_id: string | null }>(
    `SELECT type, outcome, provider_charge_id FROM provider_events WHERE id = :id`,
    { replacements: { id }, type: QueryTypes.SELECT },
  );
}

function pixEntry(txid: string, overrides: Record<string, unknown> = {}) {
  return {
    endToEndId: `E99999999${Date.now().toString().slice(0, 12)}${crypto.randomBytes(6).toString('hex').slice(0, 11)}`,
    txid,
    valor: '43.21',
    chave: '11222333000181',
    horario: new Date().toISOString(),
    ...overrides,
  };
}

it('a charge is a cob at the PSP; paid, the notification settles it once, after GET /pix/{e2eid} confirms it', async () => {
  const charge = await createCharge();
  const txid = txidFor(charge.id);
  const row = (await Charge.findByPk(charge.id))!;
  expect([row.providerChargeId, row.pixTxid]).toEqual([txid, txid]);
  const before = await balance(stack.sequelize, accounts.merchantAvailable(seller.merchantId));

  expect((await stack.pay(charge.id)).status).toBe(200);
  const paid = await waitForStatus(charge.id, 'PAID');
  expect(paid.payer).toMatchObject({ name: 'Pagador Sandbox', documentType: 'CPF' });
  expect(await paidTransactions(charge.id)).toBe(1);
  // 1% fee of 43.21 → 43 cents.
  expect(await balance(stack.sequelize, accounts.merchantAvailable(seller.merchantId))).toBe(before + 4_321 - 43);
  expect(await events(`pix:${paid.endToEndId}`)).toEqual([
    { type: 'pix', outcome: 'SIGNALLED', provider_charge_id: txid },
  ]);
  // Every call to API Pix went over mutual TLS and followed the BCB document; settlement read the cob and the Pix back.
  const { calls, violations } = stack.pixApiRequests();
  expect(violations).toEqual([]);
  expect(calls).toEqual(
    expect.arrayContaining([
      `PUT /api/v2/cob/${txid}`,
      `GET /api/v2/cob/${txid}`,
      `GET /api/v2/pix/${paid.endToEndId}`,
    ]),
  );

  // The PSP repeats the notification: its first outcome stands, nothing moves twice.
  const replay = await json(
    await notify({ pix: [{ endToEndId: paid.endToEndId, txid, valor: '43.21', horario: paid.paidAt }] }),
  );
  expect(replay).toEqual({
    status: 200,
    body: { received: true, outcomes: [{ endToEndId: paid.endToEndId, outcome: 'SIGNALLED' }] },
  });
  expect(await paidTransactions(charge.id)).toBe(1);
});

it('credits nothing from a notification the PSP does not back (a pending cob, a made-up Pix), and keeps the charge payable', async () => {
  const charge = await createCharge();
  const txid = txidFor(charge.id);
  const forged = pixEntry(txid);
  const res = await json(await notify({ pix: [forged] }));
  expect(res).toEqual({
    status: 200,
    body: { received: true, outcomes: [{ endToEndId: forged.endToEndId, outcome: 'SIGNALLED' }] },
  });
  const alerts = () =>
    stack.sequelize.query<{ kind: string }>(`SELECT kind FROM payment_alerts WHERE charge_id = :id`, {
      replacements: { id: charge.id },
      type: QueryTypes.SELECT,
    });
  await waitFor(async () => (await alerts()).length > 0, 'the unconfirmed claim to be recorded');
  expect(await alerts()).toEqual([{ kind: 'NOT_CONFIRMED' }]);
  expect((await Charge.findByPk(charge.id))!.status).toBe('PENDING');
  expect(await paidTransactions(charge.id)).toBe(0);

  expect((await stack.pay(charge.id)).status).toBe(200);
  await waitForStatus(charge.id, 'PAID');
  expect(await paidTransactions(charge.id)).toBe(1);
});

it('answers 200 UNKNOWN_CHARGE to a Pix of no charge of ours (another txid, our shape but no charge, no txid), crediting nothing', async () => {
  const notOurs = pixEntry('ABCDEFGHIJKLMNOPQRSTUVWXYZ0123');
  const noCharge = pixEntry(txidFor(crypto.randomUUID()));
  const { txid: _none, ...static_ } = pixEntry('x');
  const res = await json(await notify({ pix: [notOurs, noCharge, static_] }));
  expect(res.status).toBe(200);
  expect(res.body.outcomes.map((o: { outcome: string }) => o.outcome)).toEqual([
    'UNKNOWN_CHARGE',
    'UNKNOWN_CHARGE',
    'UNKNOWN_CHARGE',
  ]);
  expect(await events(`pix:${noCharge.endToEndId}`)).toEqual([
    { type: 'pix', outcome: 'UNKNOWN_CHARGE', provider_charge_id: noCharge.txid },
  ]);
});

it('answers a wrong secret 404 in the envelope (never logged: the run’s secrets audit checks), before reading the body', async () => {
  const wrong = `${stack.workerEnv.PIX_WEBHOOK_SECRET.slice(0, -4)}beef`;
  recordIssuedSecrets('a wrong API Pix webhook secret (must not be logged either)', [wrong]);
  for (const res of [await notify({ pix: [pixEntry('x')] }, wrong), await notify(undefined, wrong, '{not json')]) {
    const { status, body } = await json(res);
    expect(status).toBe(404);
    expect(body.error).toMatchObject({ code: 'NOT_FOUND', traceId: expect.any(String) });
    expect(JSON.stringify(body)).not.toContain(wrong);
  }
});

describe('wrong secrets', () => {
  /** An API of its own (its own counters), logging into `lines`. */
  async function apiWith(pixWebhookWrongSecrets: { perMinute?: number; logIntervalMs?: number }) {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, cb) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        cb();
      },
    });
    const api = await stack.extraApi({ logger: pino({ level: 'debug' }, sink), pixWebhookWrongSecrets });
    return { ...api, lines };
  }
  const nearMiss = (tail: string) => {
    const wrong = `${stack.workerEnv.PIX_WEBHOOK_SECRET.slice(0, -tail.length)}${tail}`;
    recordIssuedSecrets('a wrong API Pix webhook secret (must not be logged either)', [wrong]);
    return wrong;
  };

  it('count against a per-client limit (429 RATE_LIMITED past it), while the right secret is never limited', async () => {
    const api = await apiWith({ perMinute: 3 });
    try {
      const wrong = nearMiss('0bad');
      const statuses: number[] = [];
      let refused: Response | undefined;
      for (let i = 0; i < 5; i++) {
        refused = await notify({ pix: [pixEntry('x')] }, wrong, undefined, api.url);
        statuses.push(refused.status);
        if (i < 4) await refused.arrayBuffer();
      }
      expect(statuses).toEqual([404, 404, 404, 429, 429]);
      expect(Number(refused!.headers.get('retry-after'))).toBeGreaterThan(0);
      const { body } = await json(refused!);
      expect(body.error).toMatchObject({ code: 'RATE_LIMITED', traceId: expect.any(String) });
      expect(JSON.stringify(body)).not.toContain(wrong);

      // The PSP, from the same address (behind a proxy every caller has the proxy's), is still taken, every time.
      for (let i = 0; i < 5; i++) {
        const notOurs = pixEntry('ABCDEFGHIJKLMNOPQRSTUVWXYZ0123');
        const taken = await json(await notify({ pix: [notOurs] }, undefined, undefined, api.url));
        expect(taken).toEqual({
          status: 200,
          body: { received: true, outcomes: [{ endToEndId: notOurs.endToEndId, outcome: 'UNKNOWN_CHARGE' }] },
        });
      }
      // …and taking it gives the wrong secrets no budget back.
      expect((await notify({ pix: [pixEntry('x')] }, wrong, undefined, api.url)).status).toBe(429);
    } finally {
      await api.close();
    }
  });

  it('are logged once per interval with their count, never the secret', async () => {
    // An interval far longer than a burst of 7 takes, even on a loaded machine.
    const api = await apiWith({ perMinute: 5, logIntervalMs: 5_000 });
    try {
      const wrong = nearMiss('f00d');
      const warnings = () =>
        api.lines.map((l) => JSON.parse(l)).filter((l) => l.level === 40 && /wrong secret/.test(l.msg));
      const burst = async (n: number) => {
        const statuses: number[] = [];
        for (let i = 0; i < n; i++) {
          const res = await notify({ pix: [pixEntry('x')] }, wrong, undefined, api.url);
          await res.arrayBuffer();
          statuses.push(res.status);
        }
        return statuses;
      };

      const statuses = await burst(7);
      expect(warnings()).toEqual([]); // nothing each: the interval's line comes at its end
      expect(statuses).toEqual([404, 404, 404, 404, 404, 429, 429]);
      await waitFor(async () => warnings().length > 0, 'the interval’s warning');
      await new Promise((r) => setTimeout(r, 300));
      expect(warnings()).toEqual([
        expect.objectContaining({ path: '/webhooks/pix-api/:secret/pix', count: 7, limited: 2, intervalSeconds: 5 }),
      ]);

      // The next interval is counted afresh.
      await burst(2);
      await waitFor(async () => warnings().length > 1, 'the next interval’s warning');
      expect(warnings()[1]).toMatchObject({ count: 2 });

      const text = api.lines.join('\n');
      expect(text).not.toContain(wrong);
      expect(text).not.toContain(stack.workerEnv.PIX_WEBHOOK_SECRET);
    } finally {
      await api.close();
    }
  });
});

it.each([
  ['not JSON', undefined, '{"pix": ['],
  ['no pix list', {}, undefined],
  ['an empty list', { pix: [] }, undefined],
  ['a Pix without endToEndId', { pix: [{ txid: 'abc', valor: '1.00', horario: new Date().toISOString() }] }, undefined],
  [
    'an amount that is no API Pix amount',
    { pix: [{ endToEndId: 'E'.padEnd(32, '1'), valor: '1,00', horario: new Date().toISOString() }] },
    undefined,
  ],
  [
    'a time without offset',
    { pix: [{ endToEndId: 'E'.padEnd(32, '1'), valor: '1.00', horario: '2026-01-01T10:00:00' }] },
    undefined,
  ],
])('answers a body with %s 400 VALIDATION_ERROR in the envelope', async (_what, body, raw) => {
  const { status, body: answer } = await json(await notify(body, undefined, raw));
  expect(status).toBe(400);
  expect(answer.error).toMatchObject({ code: 'VALIDATION_ERROR', traceId: expect.any(String) });
});

it('settles a charge issued through the provider’s own API before the switch (sbx_ch_…) there, through its signed callback', async () => {
  const own = new HttpPixProvider({
    baseUrl: stack.sandboxUrl,
    apiKey: stack.workerEnv.PROVIDER_API_KEY,
    timeoutMs: 5_000,
  });
  const chargeId = crypto.randomUUID();
  const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
  const issued = await own.issueCharge({
    reference: chargeId,
    amountCents: 2_500,
    description: null,
    expiresAt,
    callbackUrl: `${stack.apiUrl}/webhooks/pix-gateway`,
    merchantName: null,
  });
  expect(issued.id).toMatch(/^sbx_ch_/);
  // As a charge recorded before the switch: its provider id is the /v1 one, and no run waits for it any more.
  await Charge.create({
    id: chargeId,
    merchantId: seller.merchantId,
    amountCents: 2_500,
    feeCents: 25,
    status: 'PENDING',
    description: null,
    externalRef: null,
    metadata: null,
    pix: { qrCode: issued.qrCodeBase64, copyPaste: issued.copyPaste, expiresAt },
    payerSnapshot: null,
    payerDetails: null,
    providerChargeId: issued.id,
    pixTxid: issued.txid,
    endToEndId: null,
    idempotencyKey: null,
    expiresAt: new Date(expiresAt),
    paidAt: null,
    expiredAt: null,
    cancelledAt: null,
  } as never);
  const before = stack.pixApiRequests().calls.length;
  // Paid by the provider's own id: its signed /v1 callback → settleLatePayment → GET /v1/charges/{id}.
  expect((await stack.pay(issued.id)).status).toBe(200);
  await waitFor(async () => (await Charge.findByPk(chargeId))?.status === 'PAID', 'the pre-switch charge to settle');
  expect(await paidTransactions(chargeId)).toBe(1);
  expect(stack.pixApiRequests().calls.slice(before)).toEqual([]);
});

it('refunds a Pix payment by an API Pix devolução under the refund’s id: DEVOLVIDO settles it, NAO_REALIZADO releases the shares', async () => {
  const { client, merchantId } = await signedInMerchant(stack, { emailPrefix: 'devolucao', name: 'Loja Devolução' });
  const created = await client.call('POST', '/charges', {
    body: { merchantId, amountCents: 10_000 },
    headers: { 'x-idempotency-key': crypto.randomUUID() },
  });
  expect(created.status).toBe(201);
  const chargeId = created.body.id as string;
  expect((await stack.pay(chargeId)).status).toBe(200);
  await waitFor(async () => (await client.call('GET', `/charges/${chargeId}`)).body.status === 'PAID', 'charge PAID');
  const { endToEndId } = (await Charge.findByPk(chargeId))!;
  const available = () => balance(stack.sequelize, accounts.merchantAvailable(merchantId));
  const reserved = () => balance(stack.sequelize, accounts.merchantReserved(merchantId));
  expect(await available()).toBe(9_900);

  const settled = async (amountCents: number) => {
    const res = await client.call('POST', `/charges/${chargeId}/refund`, {
      body: { amountCents, reason: 'devolução' },
      headers: { 'x-idempotency-key': crypto.randomUUID() },
    });
    expect(res.status).toBe(200);
    const refundId = res.body.refunds.at(-1).id as string;
    const refund = await waitFor(async () => {
      const found = (await client.call('GET', `/charges/${chargeId}`)).body.refunds.find(
        (r: { id: string }) => r.id === refundId,
      );
      return found?.status !== 'PROCESSING' ? found : undefined;
    }, `refund ${refundId} settled`);
    return { refundId, refund };
  };

  const done = await settled(4_000);
  expect(done.refund).toMatchObject({ status: 'SUCCEEDED', endToEndId: expect.stringMatching(/^D/) });
  expect(stack.pixApiRequests().calls).toContain(
    `PUT /api/v2/pix/${endToEndId}/devolucao/${devolucaoIdFor(done.refundId)}`,
  );
  expect(stack.sandbox.state.devolucoes.get(`${endToEndId}/${devolucaoIdFor(done.refundId)}`)).toMatchObject({
    amountCents: 4_000,
  });
  expect(await available()).toBe(9_900 - 3_960);

  // The sandbox's payer institution refuses an amount ending in 13 cents: NAO_REALIZADO.
  const refused = await settled(1_013);
  expect(refused.refund).toMatchObject({ status: 'FAILED', failureCode: 'RETURN_REFUSED' });
  expect(await reserved()).toBe(0);
  expect(await available()).toBe(9_900 - 3_960);
});

/**
 * POST/GET /sellers/pix through HTTP against the real stack: PostgreSQL, the Temporal dev
 * server, a worker, and the sandbox provider over HTTP.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { QueryTypes } from 'sequelize';
import { hasError, parsePix } from 'pix-utils';
import { Charge, ApiCredential, OutboxEvent } from '../../db/models';
import { accounts } from '../../core/ledger/accounts';
import { decryptSecret, encryptSecret, parseKey } from '../../core/crypto/secretBox';
import { webhookEndpointStore } from '../../db/events';
import { signProviderCallback } from '../../core/pix/providerSignature';
import { chargeWorkflowId } from '../../workflows/charges/definitions';
import { startIntegrationStack, type IntegrationStack } from '../support/integrationStack';
import { assertLedgerInvariant, balance } from '../support/ledger';
import { checkRecordedEvents } from '../support/webhookEvents';
import { waitFor } from '../support/env';
import type { MerchantCredentials } from '../../db/identity/merchantAdmin';
import { pspChargeRef } from '../../core/pix/apiPixIds';

jest.setTimeout(120_000);

let stack: IntegrationStack;
let seller: MerchantCredentials;
let other: MerchantCredentials;

beforeAll(async () => {
  // A stack of its own, not the worker's shared one (test/support/sharedStack.ts): it restarts its sandbox.
  stack = await startIntegrationStack();
  seller = await stack.createMerchant({ name: 'Loja Principal', document: '11144477735' });
  other = await stack.createMerchant({ name: 'Outra Loja' });
});

afterAll(async () => {
  await stack?.stop();
});

afterEach(async () => {
  await fetch(`${stack.sandboxUrl}/sandbox/faults`, { method: 'DELETE' });
  await assertLedgerInvariant(stack.sequelize);
});

const key = () => `key-${crypto.randomUUID()}`;

async function createCharge(creds: MerchantCredentials, body: Record<string, unknown> = {}, idem = key()) {
  return stack.api('POST', '/sellers/pix', {
    creds,
    body: { amountCents: 10_000, description: 'Pedido', ...body },
    headers: { 'x-idempotency-key': idem },
  });
}

async function waitForStatus(id: string, status: string) {
  return waitFor(async () => {
    const res = await stack.api('GET', `/sellers/pix/${id}`, { creds: seller });
    return res.body?.status === status ? res.body : null;
  }, `charge ${id} to become ${status}`);
}

describe('client credentials', () => {
  it('answers 401 CREDENTIALS_REQUIRED without headers, in the envelope with a traceId', async () => {
    const res = await stack.api('POST', '/sellers/pix', { body: { amountCents: 100 } });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('CREDENTIALS_REQUIRED');
    expect(res.body.error.traceId).toBe(res.headers.get('x-trace-id'));
  });

  it('answers 401 INVALID_CREDENTIALS for a wrong secret or unknown client', async () => {
    const wrong = await stack.api('GET', '/sellers/pix/x', { creds: { ...seller, clientSecret: 'sk_wrong' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('INVALID_CREDENTIALS');
    const unknown = await stack.api('GET', '/sellers/pix/x', { creds: { ...seller, clientId: 'cli_nobody' } });
    expect(unknown.body.error.code).toBe('INVALID_CREDENTIALS');
  });

  it('answers 400 MERCHANT_ID_REQUIRED when the credential’s merchant is not active', async () => {
    const closed = await stack.createMerchant({ name: 'Loja Fechada' });
    await stack.sequelize.query(`UPDATE merchants SET active = false WHERE id = :id`, {
      replacements: { id: closed.merchantId },
    });
    const res = await stack.api('GET', '/sellers/pix/x', { creds: closed });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('MERCHANT_ID_REQUIRED');
  });

  it('answers 400 MERCHANT_ID_REQUIRED when the credential has no merchant', async () => {
    const secret = 'sk_orphan_secret';
    await ApiCredential.create({
      id: crypto.randomUUID(),
      merchantId: null,
      clientId: `cli_orphan_${crypto.randomUUID()}`,
      secretCiphertext: encryptSecret(secret, parseKey(stack.encryptionKey)),
      lastUsedAt: null,
    }).then(async (c) => {
      const res = await stack.api('GET', '/sellers/pix/x', {
        creds: { merchantId: '', clientId: c.clientId, clientSecret: secret },
      });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('MERCHANT_ID_REQUIRED');
    });
  });
});

describe('POST /sellers/pix validation', () => {
  it.each([
    ['missing amount', { description: 'x' }, 'amountCents'],
    ['zero amount', { amountCents: 0 }, 'amountCents'],
    ['fractional amount', { amountCents: 10.5 }, 'amountCents'],
    ['unknown field', { amountCents: 100, surprise: true }, ''],
    ['long externalRef', { amountCents: 100, externalRef: 'x'.repeat(129) }, 'externalRef'],
    ['bad expiresAt', { amountCents: 100, expiresAt: 'tomorrow' }, 'expiresAt'],
    ['expiresAt in the past', { amountCents: 100, expiresAt: '2020-01-01T00:00:00Z' }, 'expiresAt'],
    [
      'split to unknown merchant',
      { amountCents: 100, splits: [{ merchantId: crypto.randomUUID(), amountCents: 10 }] },
      'splits.0.merchantId',
    ],
  ])('refuses %s with 400 VALIDATION_ERROR and creates nothing', async (_name, body, field) => {
    const before = await Charge.count();
    const res = await stack.api('POST', '/sellers/pix', {
      creds: seller,
      body,
      headers: { 'x-idempotency-key': key() },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.traceId).toEqual(expect.any(String));
    if (field) expect(res.body.error.details.fields.map((f: { field: string }) => f.field)).toContain(field);
    expect(await Charge.count()).toBe(before);
  });

  it('refuses malformed JSON and a non-JSON content type', async () => {
    const malformed = await stack.api('POST', '/sellers/pix', {
      creds: seller,
      rawBody: '{"amountCents": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('VALIDATION_ERROR');
    const text = await stack.api('POST', '/sellers/pix', {
      creds: seller,
      rawBody: 'amountCents=1',
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.status).toBe(400);
    expect(text.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('refuses split shares larger than the amount after fees', async () => {
    const res = await createCharge(seller, {
      amountCents: 1000,
      splits: [{ merchantId: other.merchantId, amountCents: 995 }],
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fields.map((f: { field: string }) => f.field)).toContain('splits');
  });
});

describe('a Pix charge from creation to payment', () => {
  it('creates the charge with a valid BR Code, finds it by every identifier, and settles it once', async () => {
    const externalRef = `order-${crypto.randomUUID()}`;
    const created = await createCharge(seller, { amountCents: 12_345, externalRef, metadata: { orderId: 7 } });
    expect(created.status).toBe(201);
    const charge = created.body;
    expect(charge).toMatchObject({ status: 'PENDING', amountCents: 12_345, externalRef, splits: [], payer: null });
    expect(charge.beneficiary).toMatchObject({
      id: seller.merchantId,
      name: 'Loja Principal',
      account: { type: 'PAYMENT' },
    });
    const parsed = parsePix(charge.pix.copyPaste);
    expect(hasError(parsed)).toBe(false);
    expect(Buffer.from(charge.pix.qrCode, 'base64').subarray(1, 4).toString()).toBe('PNG');

    const row = await Charge.findByPk(charge.id);
    expect(row?.status).toBe('PENDING');
    for (const lookup of [charge.id, externalRef, row!.providerChargeId!, row!.pixTxid!]) {
      const found = await stack.api('GET', `/sellers/pix/${encodeURIComponent(lookup)}`, { creds: seller });
      expect(found.status).toBe(200);
      expect(found.body.id).toBe(charge.id);
    }
    const foreign = await stack.api('GET', `/sellers/pix/${charge.id}`, { creds: other });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('NOT_FOUND');

    const merchantBefore = await balance(stack.sequelize, accounts.merchantAvailable(seller.merchantId));
    const feesBefore = await balance(stack.sequelize, accounts.platformFees);
    expect((await stack.pay(charge.id)).status).toBe(200);
    const paid = await waitForStatus(charge.id, 'PAID');
    expect(paid.payer).toMatchObject({ name: 'Pagador Sandbox', documentType: 'CPF' });
    expect(paid.endToEndId).toMatch(/^E\d{8}\d{12}[A-Za-z0-9]{11}$/);
    const byE2e = await stack.api('GET', `/sellers/pix/${paid.endToEndId}`, { creds: seller });
    expect(byE2e.body.id).toBe(charge.id);

    // Fee: 1% of 12,345 = 123.45 → 123 cents (half up); merchant gets the rest.
    expect(await balance(stack.sequelize, accounts.merchantAvailable(seller.merchantId))).toBe(
      merchantBefore + 12_345 - 123,
    );
    expect(await balance(stack.sequelize, accounts.platformFees)).toBe(feesBefore + 123);

    // The provider repeats its callback: nothing moves twice.
    const resend = await fetch(`${stack.sandboxUrl}/sandbox/charges/${row!.providerChargeId}/resend-callback`, {
      method: 'POST',
    });
    expect(resend.status).toBeLessThan(300);
    // Wait until the sandbox has delivered the repeated callback and our route answered 2xx.
    await waitFor(
      async () =>
        stack.sandbox.state.callbacks.filter((c) => c.chargeId === row!.providerChargeId && c.delivered).length >= 2,
      'the repeated callback to be delivered',
    );
    expect(await balance(stack.sequelize, accounts.merchantAvailable(seller.merchantId))).toBe(
      merchantBefore + 12_345 - 123,
    );
    const [txCount] = await stack.sequelize.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ledger_transactions WHERE movement_key = :k`,
      {
        replacements: { k: `charge-paid:${charge.id}` },
        type: QueryTypes.SELECT,
      },
    );
    expect(txCount.n).toBe(1);

    const events = await OutboxEvent.findAll({ where: { aggregateId: charge.id }, order: [['createdAt', 'ASC']] });
    expect(events.map((e) => e.type)).toEqual(['charge.created', 'charge.paid']);
    expect(events[1].payload).toMatchObject({ id: charge.id, status: 'PAID' });

    const desc = await stack.temporal.workflow.getHandle(chargeWorkflowId(charge.id)).describe();
    expect(desc.status.name).toBe('COMPLETED');
  });

  it('credits split merchants from the paid amount', async () => {
    const third = await stack.createMerchant({ name: 'Terceira' });
    const otherBefore = await balance(stack.sequelize, accounts.merchantAvailable(other.merchantId));
    const sellerBefore = await balance(stack.sequelize, accounts.merchantAvailable(seller.merchantId));
    const created = await createCharge(seller, {
      amountCents: 10_000,
      splits: [
        { merchantId: other.merchantId, percentage: 30 },
        { merchantId: third.merchantId, amountCents: 1_000 },
      ],
    });
    expect(created.status).toBe(201);
    expect(created.body.splits).toEqual([
      expect.objectContaining({ merchantId: other.merchantId, amountCents: 3_000, percentage: 30 }),
      expect.objectContaining({ merchantId: third.merchantId, amountCents: 1_000, percentage: 10 }),
    ]);
    await stack.pay(created.body.id);
    await waitForStatus(created.body.id, 'PAID');
    expect(await balance(stack.sequelize, accounts.merchantAvailable(other.merchantId))).toBe(otherBefore + 3_000);
    expect(await balance(stack.sequelize, accounts.merchantAvailable(third.merchantId))).toBe(1_000);
    // 10,000 − 1% fee (100) − 3,000 − 1,000
    expect(await balance(stack.sequelize, accounts.merchantAvailable(seller.merchantId))).toBe(sellerBefore + 5_900);
  });
});

describe('idempotency of POST /sellers/pix', () => {
  it('replays the same charge for the same key and payload, and refuses another payload', async () => {
    const idem = key();
    const first = await createCharge(seller, { amountCents: 500 }, idem);
    const again = await createCharge(seller, { amountCents: 500 }, idem);
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const conflict = await createCharge(seller, { amountCents: 501 }, idem);
    expect(conflict.status).toBe(409);
    expect(conflict.body.error.code).toBe('DUPLICATE_IDEMPOTENCY_KEY');
    expect(await Charge.count({ where: { idempotencyKey: idem } })).toBe(1);
  });

  it("shows a charge webhook's secret once, in the 201, as it is stored; a replay and a read show null", async () => {
    // A receiver that takes every delivery, so the charge's events leave nothing retrying.
    const receiver = http.createServer((_req, res) => res.writeHead(204).end());
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/charge-hook`;
      const idem = key();
      const first = await createCharge(seller, { amountCents: 700, webhook_url: webhookUrl }, idem);
      expect(first.status).toBe(201);
      const { webhook } = first.body;
      expect(Object.keys(webhook)).toEqual(['id', 'url', 'events', 'secret']);
      expect(webhook).toMatchObject({ url: webhookUrl, secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/) });
      // What deliveries sign with is what the 201 showed.
      const endpoint = await webhookEndpointStore.findEndpointById(webhook.id);
      expect(decryptSecret(endpoint!.secretCiphertext, parseKey(stack.encryptionKey))).toBe(webhook.secret);

      const again = await createCharge(seller, { amountCents: 700, webhook_url: webhookUrl }, idem);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual({ ...first.body, webhook: { ...webhook, secret: null } });
      const read = await stack.api('GET', `/sellers/pix/${first.body.id}`, { creds: seller });
      expect(read.body.webhook).toEqual({ ...webhook, secret: null });
    } finally {
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  });

  it('scopes keys per merchant', async () => {
    const idem = key();
    const mine = await createCharge(seller, { amountCents: 700 }, idem);
    const theirs = await createCharge(other, { amountCents: 700 }, idem);
    expect(theirs.status).toBe(201);
    expect(theirs.body.id).not.toBe(mine.body.id);
  });

  it('makes one charge from ten concurrent requests with one key', async () => {
    const idem = key();
    const results = await Promise.all(
      Array.from({ length: 10 }, () => createCharge(seller, { amountCents: 900 }, idem)),
    );
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(201));
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    expect(await Charge.count({ where: { idempotencyKey: idem } })).toBe(1);
  });
});

describe('provider failures while issuing', () => {
  it('answers 502 PROVIDER_ERROR, stores no charge, and lets the same key succeed later', async () => {
    await fetch(`${stack.sandboxUrl}/sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ errorRate: 1 }),
    });
    const idem = key();
    const before = await Charge.count();
    const failed = await createCharge(seller, { amountCents: 4_200 }, idem);
    expect(failed.status).toBe(502);
    expect(failed.body.error.code).toBe('PROVIDER_ERROR');
    expect(await Charge.count()).toBe(before);

    await fetch(`${stack.sandboxUrl}/sandbox/faults`, { method: 'DELETE' });
    const retried = await createCharge(seller, { amountCents: 4_200 }, idem);
    expect(retried.status).toBe(201);
    expect(await Charge.count()).toBe(before + 1);
  });
});

describe('cancel and late payment', () => {
  it('cancelling the workflow (as from the Web UI) closes the charge at the provider and marks it CANCELLED', async () => {
    const created = await createCharge(seller, { amountCents: 3_000 });
    await stack.temporal.workflow.getHandle(chargeWorkflowId(created.body.id)).cancel();
    const cancelled = await waitForStatus(created.body.id, 'CANCELLED');
    expect(cancelled.paidAt).toBeNull();
    const handle = stack.temporal.workflow.getHandle(chargeWorkflowId(created.body.id));
    await handle.result().catch(() => undefined);
    expect((await handle.describe()).status.name).toBe('CANCELLED');
    const pay = await stack.pay(created.body.id);
    expect(pay.status).toBe(409); // the provider no longer takes payments for it
    const events = await OutboxEvent.findAll({ where: { aggregateId: created.body.id } });
    expect(events.map((e) => e.type).sort()).toEqual(['charge.cancelled', 'charge.created']);
  });

  it('refuses a provider callback with a bad signature', async () => {
    const body = JSON.stringify({
      eventId: 'evt_forged',
      type: 'charge.paid',
      occurredAt: new Date().toISOString(),
      charge: {},
    });
    const res = await fetch(`${stack.apiUrl}/webhooks/pix-gateway`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-provider-timestamp': String(Date.now()),
        'x-provider-signature': 'a'.repeat(64),
      },
      body,
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('INVALID_SIGNATURE');
  });
});

describe('legacy alias, health and unknown routes', () => {
  it('serves /rifeiro/pix exactly like /sellers/pix, with a Deprecation header', async () => {
    const created = await stack.api('POST', '/rifeiro/pix', {
      creds: seller,
      body: { amountCents: 321 },
      headers: { 'x-idempotency-key': key() },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('deprecation')).toBe('true');
    const read = await stack.api('GET', `/rifeiro/pix/${created.body.id}`, { creds: seller });
    expect(read.body.id).toBe(created.body.id);
  });

  it('reports health and readiness with the spec fields', async () => {
    const health = await stack.api('GET', '/healthz');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({
      ok: true,
      timestamp: expect.any(String),
      buildInfo: expect.objectContaining({ version: expect.any(String), source: expect.any(String) }),
    });
    const ready = await stack.api('GET', '/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ ok: true, database: true, temporal: true, smtp: true, smtpError: null });
  });

  it('answers unknown routes with 404 in the envelope', async () => {
    const res = await stack.api('GET', '/sellers/nothing-here', { creds: seller });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
  });
});

// ---- Settlement asks the provider (late, replayed and malformed callbacks), BR Code name, sandbox restarts ----

async function sendCallback(event: Record<string, unknown>) {
  const body = JSON.stringify(event);
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
  return { status: res.status, body: (await res.json()) as any };
}

function paidEvent(row: Charge, overrides: Record<string, unknown> = {}, eventId = `evt_${crypto.randomUUID()}`) {
  return {
    eventId,
    type: 'charge.paid',
    occurredAt: new Date().toISOString(),
    charge: {
      id: row.providerChargeId,
      reference: row.id,
      status: 'PAID',
      amountCents: row.amountCents,
      endToEndId: 'E99999999202611220000FORGEDCALLB',
      paidAt: new Date().toISOString(),
      payer: {
        name: 'Forjador',
        document: '52998224725',
        documentType: 'CPF',
        email: null,
        phone: null,
        institution: 'Banco',
        ispb: '99999999',
        agency: '1',
        account: '2',
      },
      ...overrides,
    },
  };
}

async function paymentAlerts(chargeId: string) {
  return stack.sequelize.query<{ kind: string; end_to_end_id: string | null }>(
    `SELECT kind, end_to_end_id FROM payment_alerts WHERE charge_id = :id ORDER BY id`,
    {
      replacements: { id: chargeId },
      type: QueryTypes.SELECT,
    },
  );
}

async function chargePaidTransactions(chargeId: string) {
  const [row] = await stack.sequelize.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ledger_transactions WHERE movement_key = :k`,
    {
      replacements: { k: `charge-paid:${chargeId}` },
      type: QueryTypes.SELECT,
    },
  );
  return row.n;
}

describe('settlement asks the provider', () => {
  it('credits nothing for a correctly signed callback whose charge the provider says is ACTIVE', async () => {
    const created = await createCharge(seller, { amountCents: 4_321 });
    const row = (await Charge.findByPk(created.body.id))!;
    const before = await balance(stack.sequelize, accounts.merchantAvailable(seller.merchantId));
    const res = await sendCallback(paidEvent(row));
    expect(res.status).toBe(200);
    await waitFor(
      async () => (await paymentAlerts(row.id)).length > 0 || (await Charge.findByPk(row.id))?.status === 'PAID',
      'the forged callback to be handled',
    );
    expect((await Charge.findByPk(row.id))?.status).toBe('PENDING');
    expect(await chargePaidTransactions(row.id)).toBe(0);
    expect(await balance(stack.sequelize, accounts.merchantAvailable(seller.merchantId))).toBe(before);
    expect(await paymentAlerts(row.id)).toEqual([
      { kind: 'NOT_CONFIRMED', end_to_end_id: 'E99999999202611220000FORGEDCALLB' },
    ]);

    // The real payment still settles, from the provider's own data.
    expect((await stack.pay(row.id)).status).toBe(200);
    const paid = await waitForStatus(row.id, 'PAID');
    expect(paid.endToEndId).not.toBe('E99999999202611220000FORGEDCALLB');
    expect(paid.payer).toMatchObject({ name: 'Pagador Sandbox' });
    expect(await chargePaidTransactions(row.id)).toBe(1);
  });

  it('credits a payment the provider settled after the charge was cancelled, flagged paidAfterExpiry', async () => {
    const created = await createCharge(seller, { amountCents: 2_600 });
    await stack.temporal.workflow.getHandle(chargeWorkflowId(created.body.id)).cancel();
    await waitForStatus(created.body.id, 'CANCELLED');
    const before = await balance(stack.sequelize, accounts.merchantAvailable(seller.merchantId));
    // The payer's bank settled it in SPI as the provider closed it: the provider sends its callback.
    const late = await fetch(`${stack.sandboxUrl}/sandbox/charges/${pspChargeRef(created.body.id)}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ late: true }),
    });
    expect(late.status).toBe(200);
    const paid = await waitForStatus(created.body.id, 'PAID');
    expect(paid.paidAfterExpiry).toBe(true);
    expect(await balance(stack.sequelize, accounts.merchantAvailable(seller.merchantId))).toBe(before + 2_600 - 26);
    const [event] = await stack.sequelize.query<{ outcome: string }>(
      `SELECT outcome FROM provider_events WHERE provider_charge_id = :id`,
      {
        replacements: { id: (await Charge.findByPk(created.body.id))!.providerChargeId },
        type: QueryTypes.SELECT,
      },
    );
    expect(event.outcome).toBe('LATE_PAYMENT');
    expect(await chargePaidTransactions(created.body.id)).toBe(1);
  });

  it('keeps the first outcome of a replayed callback and alerts on a second, distinct payment', async () => {
    const created = await createCharge(seller, { amountCents: 3_100 });
    const row = (await Charge.findByPk(created.body.id))!;
    const forged = paidEvent(row);
    expect((await sendCallback(forged)).body.outcome).toBe('SIGNALLED');
    await stack.pay(row.id);
    await waitForStatus(row.id, 'PAID');
    // The same event again, now that the charge is PAID: the stored outcome is not rewritten.
    expect((await sendCallback(forged)).status).toBe(200);
    const [stored] = await stack.sequelize.query<{ outcome: string }>(
      `SELECT outcome FROM provider_events WHERE id = :id`,
      {
        replacements: { id: forged.eventId },
        type: QueryTypes.SELECT,
      },
    );
    expect(stored.outcome).toBe('SIGNALLED');

    // A different payment (another endToEndId) for the PAID charge is recorded as an alert.
    const second = await sendCallback(paidEvent(row, { endToEndId: 'E99999999202611220000SECONDPAYMN' }));
    expect(second.status).toBe(200);
    expect(second.body.outcome).toBe('DUPLICATE_PAYMENT');
    expect((await paymentAlerts(row.id)).map((a) => a.end_to_end_id)).toContain('E99999999202611220000SECONDPAYMN');
    expect(await chargePaidTransactions(row.id)).toBe(1);
  });

  it('answers 200 (never 500) for a callback with a very long endToEndId, and credits nothing unconfirmed', async () => {
    const created = await createCharge(seller, { amountCents: 1_900 });
    await stack.temporal.workflow.getHandle(chargeWorkflowId(created.body.id)).cancel();
    await waitForStatus(created.body.id, 'CANCELLED');
    const row = (await Charge.findByPk(created.body.id))!;
    const res = await sendCallback(paidEvent(row, { endToEndId: `E${'9'.repeat(3_000)}` }));
    expect(res.status).toBe(200);
    expect(res.body.outcome).toBe('LATE_PAYMENT');
    await waitFor(async () => (await paymentAlerts(row.id)).length > 0, 'the unconfirmed late payment to be recorded');
    expect((await Charge.findByPk(row.id))?.status).toBe('CANCELLED');
    expect(await chargePaidTransactions(row.id)).toBe(0);
  });
});

describe('BR Code and sandbox restarts', () => {
  // A charge is a cob at an API Pix PSP, whose BR Code is the PSP's. A cob has no field
  // for the BR Code's merchant name (field 59, the receiving user's: the gateway's account); the
  // merchant's name goes in the cob's infoAdicionais, which the standard has the payer's app show.
  // (Before API Pix this test read the merchant's name in field 59 of a BR Code the sandbox built.)
  it("shows the merchant's name to the payer with the cob (infoAdicionais); field 59 is the PSP account's", async () => {
    const shop = await stack.createMerchant({ name: 'Açaí & Café São João Ltda Filial Centro' });
    const created = await createCharge(shop, { amountCents: 1_234 });
    expect(created.status).toBe(201);
    const parsed = parsePix(created.body.pix.copyPaste);
    expect(hasError(parsed)).toBe(false);
    expect((parsed as { merchantName: string }).merchantName).toBe('PIX GATEWAY SANDBOX');
    const row = (await Charge.findByPk(created.body.id))!;
    const cob = [...stack.sandbox.state.charges.values()].find((r) => r.cob && r.charge.txid === row.pixTxid)?.cob;
    expect(cob?.revisions.at(-1)?.infoAdicionais).toEqual([
      { nome: 'Estabelecimento', valor: 'Açaí & Café São João Ltda Filial Centro' },
    ]);
  });

  it('pays a charge created before the sandbox restarted (the provider keeps its state on disk)', async () => {
    const created = await createCharge(seller, { amountCents: 2_222 });
    expect(created.status).toBe(201);
    await stack.restartSandbox();
    expect((await stack.pay(created.body.id)).status).toBe(200);
    await waitForStatus(created.body.id, 'PAID');
    expect(await chargePaidTransactions(created.body.id)).toBe(1);
  });
});

// Last: every event this file's flows recorded (and any other on this stack) against the API document.
it('records only events whose body matches the payload schema the API document gives their type', async () => {
  const { types, mismatches } = await checkRecordedEvents(stack.sequelize);
  expect(mismatches).toEqual([]);
  expect(types).toEqual(expect.arrayContaining(['charge.paid']));
});

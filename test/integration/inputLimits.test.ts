/**
 * Input, limits and access over HTTP against the real stack:
 * - signed provider callbacks are never rate limited; TRUST_PROXY picks the client address.
 * - payout bodies are parsed only after authentication; small limit elsewhere; `metadata`
 *   capped everywhere; deep nesting never answers 500.
 * - control characters refused with 400; charge description ≤ 140; payout
 *   recipientDocument stored and sent as digits.
 * - credential scopes enforced (403 INSUFFICIENT_SCOPE); migration 0008 keeps today's access.
 * - PAYOUTS_NOT_ENABLED on every payout route.
 * - /healthz shows no git SHA unless configured; /ready is rate limited.
 */
import crypto from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { signProviderCallback } from '../../core/pix/providerSignature';
import { PROVIDER_CALLBACK_SIGNATURE_HEADER, PROVIDER_CALLBACK_TIMESTAMP_HEADER } from '../../core/provider';
import { signedRequestHeaders } from '../../core/signatures/requestSignature';
import type { MerchantCredentials } from '../../db/identity/merchantAdmin';
import { ApiCredential, Charge, Merchant, PayoutBatch, PayoutItem, WebhookEndpoint } from '../../db/models';
import { sharedIntegrationStack, type SharedStack } from '../support/sharedStack';
import { assertLedgerInvariant } from '../support/ledger';
import { fundByPaidCharge, items, payoutMerchant, signedCall, waitForBatchEnd } from '../support/payouts';

jest.setTimeout(120_000);

let stack: SharedStack;
let seller: MerchantCredentials;

beforeAll(async () => {
  stack = await sharedIntegrationStack();
  seller = await stack.createMerchant({ name: 'Loja Limites' });
});

afterAll(async () => {
  await stack?.stop();
});

afterEach(async () => {
  await assertLedgerInvariant(stack.sequelize);
});

const creds = (m: MerchantCredentials) => ({ 'x-client-id': m.clientId, 'x-client-secret': m.clientSecret });
const key = () => `key-${crypto.randomUUID()}`;

async function raw(url: string, method: string, headers: Record<string, string>, body?: string) {
  const res = await fetch(url, {
    method,
    headers: body !== undefined ? { 'content-type': 'application/json', ...headers } : headers,
    body,
  });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON */
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

function expectValidationError(res: { status: number; body: any }, field: string) {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
  const fields = (res.body.error.details?.fields ?? []).map((f: { field: string }) => f.field);
  expect(fields).toEqual(expect.arrayContaining([field]));
}

describe('rate limits: signed callbacks spend none, the client address is the socket unless TRUST_PROXY', () => {
  it('never rate limits signed provider callbacks, and they use none of the per-IP budget', async () => {
    const limited = await stack.extraApi({ rateLimitPerMinute: 3 });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++) {
        const body = JSON.stringify({
          eventId: `evt-${crypto.randomUUID()}`,
          type: 'charge.refunded',
          occurredAt: new Date().toISOString(),
          charge: {
            id: 'sbx_ch_none',
            status: 'REFUNDED',
            amountCents: 100,
            endToEndId: null,
            paidAt: null,
            payer: null,
          },
        });
        const ts = Date.now();
        const res = await raw(
          `${limited.url}/webhooks/pix-gateway`,
          'POST',
          {
            [PROVIDER_CALLBACK_TIMESTAMP_HEADER]: String(ts),
            [PROVIDER_CALLBACK_SIGNATURE_HEADER]: signProviderCallback(body, ts, stack.callbackSecret),
          },
          body,
        );
        statuses.push(res.status);
      }
      expect(statuses).toEqual(Array(8).fill(200));
      const merchantStatuses: number[] = [];
      for (let i = 0; i < 4; i++)
        merchantStatuses.push((await raw(`${limited.url}/sellers/webhooks`, 'GET', creds(seller))).status);
      expect(merchantStatuses).toEqual([200, 200, 200, 429]);
    } finally {
      await limited.close();
    }
  });

  it('keys the per-IP limit on the socket address unless TRUST_PROXY is set', async () => {
    const direct = await stack.extraApi({ rateLimitPerMinute: 2 });
    const proxied = await stack.extraApi({ rateLimitPerMinute: 2, trustProxy: 1 });
    try {
      const from = (url: string, ip: string) =>
        raw(`${url}/sellers/webhooks`, 'GET', { ...creds(seller), 'x-forwarded-for': ip });
      // Without TRUST_PROXY a client cannot pick its own address with X-Forwarded-For.
      const spoofed = [
        await from(direct.url, '203.0.113.1'),
        await from(direct.url, '203.0.113.2'),
        await from(direct.url, '203.0.113.3'),
      ];
      expect(spoofed.map((r) => r.status)).toEqual([200, 200, 429]);
      // Behind one trusted proxy, each client address has its own budget.
      const viaProxy = [
        await from(proxied.url, '203.0.113.1'),
        await from(proxied.url, '203.0.113.1'),
        await from(proxied.url, '203.0.113.1'),
        await from(proxied.url, '203.0.113.2'),
      ];
      expect(viaProxy.map((r) => r.status)).toEqual([200, 200, 429, 200]);
    } finally {
      await direct.close();
      await proxied.close();
    }
  });
});

describe('body and metadata limits', () => {
  it('parses a payout body only after authentication', async () => {
    const notJson = `{"idempotencyKey": "x", "items": [${'1,'.repeat(100_000)}`; // 200 KB, malformed
    const anonymous = await raw(`${stack.apiUrl}/v1/payouts/batches`, 'POST', {}, notJson);
    expect({ status: anonymous.status, code: anonymous.body.error.code }).toEqual({
      status: 401,
      code: 'CREDENTIALS_REQUIRED',
    });
    // Express routes paths case-insensitively: so does the deferral.
    const upper = await raw(`${stack.apiUrl}/V1/Payouts/Batches`, 'POST', {}, notJson);
    expect({ status: upper.status, code: upper.body.error.code }).toEqual({
      status: 401,
      code: 'CREDENTIALS_REQUIRED',
    });
    const wrong = await raw(
      `${stack.apiUrl}/v1/payouts/batches`,
      'POST',
      { 'x-client-id': seller.clientId, 'x-client-secret': 'sk_wrong' },
      notJson,
    );
    expect({ status: wrong.status, code: wrong.body.error.code }).toEqual({ status: 401, code: 'INVALID_CREDENTIALS' });
    // An authenticated payout merchant gets the large limit: the body is read, then refused as JSON.
    const payer = await payoutMerchant(stack);
    const bigNotJson = `{"items": [${'1,'.repeat(1_000_000)}`; // 2 MB
    const authenticated = await raw(`${stack.apiUrl}/v1/payouts/batches`, 'POST', creds(payer), bigNotJson);
    expect({ status: authenticated.status, code: authenticated.body.error.code }).toEqual({
      status: 400,
      code: 'VALIDATION_ERROR',
    });
  });

  it('keeps a small body limit on the other routes', async () => {
    const body = JSON.stringify({ amountCents: 100, description: 'x'.repeat(200_000) });
    const res = await raw(`${stack.apiUrl}/sellers/pix`, 'POST', creds(seller), body);
    expect({ status: res.status, code: res.body.error.code }).toEqual({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
  });

  const tooManyKeys = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']));
  const tooLarge = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, 'x'.repeat(450)])); // ~9.3 KB
  const badMetadata: [string, unknown, string][] = [
    ['more than 50 keys', tooManyKeys, 'metadata'],
    ['a key over 64 characters', { ['k'.repeat(65)]: 'v' }, 'metadata'],
    ['a value over 500 characters', { note: 'x'.repeat(501) }, 'metadata.note'],
    ['depth over 2', { a: { b: { c: 1 } } }, 'metadata.a'],
    ['an array nested in an array', { a: [[1]] }, 'metadata.a'],
    ['over 8 KB serialized', tooLarge, 'metadata'],
  ];

  it.each(badMetadata)(
    'refuses charge metadata with %s, naming the field, and creates nothing',
    async (_what, metadata, field) => {
      const before = await Charge.count({ where: { merchantId: seller.merchantId } });
      const res = await stack.api('POST', '/sellers/pix', { creds: seller, body: { amountCents: 100, metadata } });
      expectValidationError(res, field);
      expect(await Charge.count({ where: { merchantId: seller.merchantId } })).toBe(before);
    },
  );

  it.each(badMetadata)(
    'refuses payout metadata with %s, naming the field, and creates nothing',
    async (_what, metadata, field) => {
      const payer = await payoutMerchant(stack);
      const res = await signedCall(stack, payer, 'POST', '/v1/payouts/batches', {
        idempotencyKey: key(),
        metadata,
        items: items(1),
      });
      expectValidationError(res, field);
      expect(await PayoutBatch.count({ where: { merchantId: payer.merchantId } })).toBe(0);
    },
  );

  it('accepts metadata at the limits and returns it as sent', async () => {
    const metadata = {
      ...Object.fromEntries(Array.from({ length: 47 }, (_, i) => [`k${i}`, i % 2 ? 'valor' : i])),
      flags: [true, false, null],
      address: { city: 'São Paulo', zip: '01310-100' },
      ['n'.repeat(64)]: 'x'.repeat(500),
    };
    const res = await stack.api('POST', '/sellers/pix', { creds: seller, body: { amountCents: 100, metadata } });
    expect(res.status).toBe(201);
    expect(res.body.metadata).toEqual(metadata);
  });

  it('answers 400, never 500, to deeply nested bodies on every route that takes one', async () => {
    const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
    const withDeep = (json: string) => json.replace('"DEEP"', deep);
    const charge = await raw(
      `${stack.apiUrl}/sellers/pix`,
      'POST',
      { ...creds(seller), 'x-idempotency-key': key() },
      withDeep('{"amountCents": 100, "metadata": {"a": "DEEP"}}'),
    );
    expect({ status: charge.status, code: charge.body.error.code }).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
    const webhook = await raw(
      `${stack.apiUrl}/sellers/webhooks`,
      'POST',
      { ...creds(seller), 'idempotency-key': key() },
      withDeep('{"url": "https://loja.example/h", "events": ["charge.paid"], "description": "DEEP"}'),
    );
    expect({ status: webhook.status, code: webhook.body.error.code }).toEqual({
      status: 400,
      code: 'VALIDATION_ERROR',
    });
    const payer = await payoutMerchant(stack);
    const payoutBody = withDeep(
      `{"idempotencyKey": "${key()}", "metadata": {"a": "DEEP"}, "items": ${JSON.stringify(items(1))}}`,
    );
    const ts = Date.now();
    const payout = await raw(
      `${stack.apiUrl}/v1/payouts/batches`,
      'POST',
      signedRequestHeaders({
        ...payer,
        method: 'POST',
        path: '/v1/payouts/batches',
        rawBody: payoutBody,
        timestampMs: ts,
      }),
      payoutBody,
    );
    expect({ status: payout.status, code: payout.body.error.code }).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
  });
});

describe('control characters in string fields', () => {
  it('refuses them with 400 VALIDATION_ERROR in every string field, and changes nothing', async () => {
    const charges = await Charge.count({ where: { merchantId: seller.merchantId } });
    expectValidationError(
      await stack.api('POST', '/sellers/pix', {
        creds: seller,
        body: { amountCents: 100, description: 'Pedido\u00001001' },
      }),
      'description',
    );
    expectValidationError(
      await stack.api('POST', '/sellers/pix', { creds: seller, body: { amountCents: 100, externalRef: 'ref\u0007' } }),
      'externalRef',
    );
    expectValidationError(
      await stack.api('POST', '/sellers/pix', {
        creds: seller,
        body: { amountCents: 100, metadata: { note: 'a\u0000b' } },
      }),
      'metadata.note',
    );
    expectValidationError(
      await stack.api('POST', '/sellers/pix', {
        creds: seller,
        body: { amountCents: 100, metadata: { 'k\u0000': 'v' } },
      }),
      'metadata',
    );
    expect(await Charge.count({ where: { merchantId: seller.merchantId } })).toBe(charges);

    const read = await stack.api('GET', '/sellers/pix/a%00b', { creds: seller });
    expect({ status: read.status, code: read.body.error.code }).toEqual({ status: 400, code: 'VALIDATION_ERROR' });

    expectValidationError(
      await stack.api('POST', '/sellers/webhooks', {
        creds: seller,
        body: { url: 'https://loja.example/h', events: ['charge.paid'], description: 'x\u0000' },
      }),
      'description',
    );
    expect(await WebhookEndpoint.count({ where: { merchantId: seller.merchantId } })).toBe(0);

    expectValidationError(
      await stack.api('POST', '/sellers/saques', {
        creds: seller,
        body: { amountCents: 100, description: 'saque\u0000' },
      }),
      'description',
    );

    const payer = await payoutMerchant(stack);
    const bad = items(1);
    bad[0].recipientName = 'Ana\u0000 Souza';
    expectValidationError(
      await signedCall(stack, payer, 'POST', '/v1/payouts/batches', { idempotencyKey: key(), items: bad }),
      'items.0.recipientName',
    );
    expect(await PayoutBatch.count({ where: { merchantId: payer.merchantId } })).toBe(0);
  });
});

describe('values the provider would refuse are stopped or normalised first', () => {
  it('caps a charge description at 140 characters, as the provider does', async () => {
    expectValidationError(
      await stack.api('POST', '/sellers/pix', {
        creds: seller,
        body: { amountCents: 100, description: 'x'.repeat(141) },
      }),
      'description',
    );
    expect(
      (
        await stack.api('POST', '/sellers/pix', {
          creds: seller,
          body: { amountCents: 100, description: 'x'.repeat(140) },
        })
      ).status,
    ).toBe(201);
  });

  it('stores and sends a formatted recipientDocument as digits, so the provider pays it', async () => {
    const payer = await payoutMerchant(stack);
    await fundByPaidCharge(stack, payer, 10_000);
    const one = items(1);
    const res = await signedCall(stack, payer, 'POST', '/v1/payouts/batches', {
      idempotencyKey: key(),
      items: [{ ...one[0], recipientDocument: '529.982.247-25' }],
    });
    expect(res.status).toBe(201);
    const [item] = await PayoutItem.findAll({ where: { batchId: res.body.batchId } });
    expect(item.recipientDocument).toBe('52998224725');
    const done = await waitForBatchEnd(stack, payer, res.body.batchId);
    expect(done.status).toBe('COMPLETED');
    expect(done.items[0].status).toBe('PAID');
  });
});

describe('credential scopes', () => {
  it('answers 403 INSUFFICIENT_SCOPE, in the envelope, to a credential without the route family scope', async () => {
    const none = await stack.createMerchant({ name: 'Sem escopo', payoutsEnabled: true, scopes: [] });
    for (const [method, path] of [
      ['GET', '/sellers/pix/x'],
      ['POST', '/sellers/pix'],
      ['GET', '/sellers/webhooks'],
      ['GET', '/sellers/saques'],
      ['GET', `/sellers/webhook-deliveries/${crypto.randomUUID()}`],
      ['GET', `/rifeiro/pix/x`],
    ]) {
      const res = await stack.api(method, path, {
        creds: none,
        body: method === 'POST' ? { amountCents: 100 } : undefined,
      });
      expect({ at: `${method} ${path}`, status: res.status, error: res.body.error }).toEqual({
        at: `${method} ${path}`,
        status: 403,
        error: {
          code: 'INSUFFICIENT_SCOPE',
          message: expect.any(String),
          details: { requiredScope: expect.any(String) },
          traceId: expect.any(String),
        },
      });
    }
    const payouts = await signedCall(stack, none, 'GET', '/v1/payouts/batches');
    expect({ status: payouts.status, code: payouts.body.error.code, details: payouts.body.error.details }).toEqual({
      status: 403,
      code: 'INSUFFICIENT_SCOPE',
      details: { requiredScope: 'payouts:read' },
    });
  });

  it('separates read from write, and write includes read', async () => {
    const reader = await stack.createMerchant({ name: 'Leitora', scopes: ['charges:read'] });
    expect((await stack.api('GET', '/sellers/pix/no-such', { creds: reader })).status).toBe(404);
    const write = await stack.api('POST', '/sellers/pix', { creds: reader, body: { amountCents: 100 } });
    expect({ status: write.status, code: write.body.error.code, details: write.body.error.details }).toEqual({
      status: 403,
      code: 'INSUFFICIENT_SCOPE',
      details: { requiredScope: 'charges:write' },
    });
    expect(await Charge.count({ where: { merchantId: reader.merchantId } })).toBe(0);
    const hooks = await stack.createMerchant({ name: 'Webhooks', scopes: ['webhooks:write'] });
    expect((await stack.api('GET', '/sellers/webhooks', { creds: hooks })).status).toBe(200);
    expect((await stack.api('GET', '/sellers/pix/no-such', { creds: hooks })).status).toBe(403);
  });

  it('migration 0008 gives every existing credential the full scope set (today everything is allowed)', async () => {
    const legacy = await stack.createMerchant({ name: 'Antiga', scopes: ['checkout:read', 'payouts:write'] });
    const empty = await stack.createMerchant({ name: 'Vazia', scopes: [] });
    const { credentialScopes, fullCredentialScopes } = await import('../../db/migrations/0008_credential_scopes');
    await credentialScopes.up({ context: stack.sequelize, name: credentialScopes.name });
    for (const m of [legacy, empty]) {
      const credential = await ApiCredential.findOne({ where: { clientId: m.clientId } });
      expect([...credential!.scopes].sort()).toEqual(expect.arrayContaining([...fullCredentialScopes].sort()));
      expect((await stack.api('GET', '/sellers/webhooks', { creds: m })).status).toBe(200);
    }
    const legacyScopes = await stack.sequelize.query<{ scopes: string[] }>(
      `SELECT scopes FROM api_credentials WHERE client_id = :id`,
      { replacements: { id: legacy.clientId }, type: QueryTypes.SELECT },
    );
    expect(legacyScopes[0].scopes).toEqual(expect.arrayContaining(['checkout:read']));
  });
});

describe('PAYOUTS_NOT_ENABLED on every payout route', () => {
  it('answers 400 PAYOUTS_NOT_ENABLED on create, list, read, items and cancel', async () => {
    const payer = await payoutMerchant(stack);
    await fundByPaidCharge(stack, payer, 10_000);
    const created = await signedCall(stack, payer, 'POST', '/v1/payouts/batches', {
      idempotencyKey: key(),
      items: items(1),
    });
    expect(created.status).toBe(201);
    await waitForBatchEnd(stack, payer, created.body.batchId);
    await Merchant.update({ payoutsEnabled: false }, { where: { id: payer.merchantId } });
    const id = created.body.batchId;
    for (const [method, path, body] of [
      ['POST', '/v1/payouts/batches', { idempotencyKey: key(), items: items(1) }],
      ['GET', '/v1/payouts/batches', undefined],
      ['GET', `/v1/payouts/batches/${id}`, undefined],
      ['GET', `/v1/payouts/batches/${id}/items`, undefined],
      ['POST', `/v1/payouts/batches/${id}/cancel`, { reason: 'teste' }],
    ] as const) {
      const res = await signedCall(stack, payer, method, path, body);
      expect({ at: `${method} ${path}`, status: res.status, code: res.body.error?.code }).toEqual({
        at: `${method} ${path}`,
        status: 400,
        code: 'PAYOUTS_NOT_ENABLED',
      });
    }
  });
});

describe('health routes: build info hidden by default, /ready rate limited', () => {
  it('shows no git SHA on /healthz unless build info is switched on', async () => {
    const hiddenBuild = { gitSha: null, buildId: null, builtAt: null, version: expect.any(String), source: 'hidden' };
    const hidden = await raw(`${stack.apiUrl}/healthz`, 'GET', {});
    expect(hidden.status).toBe(200);
    expect(hidden.body.buildInfo).toEqual(hiddenBuild);
    expect(JSON.stringify(hidden.body)).not.toMatch(/[0-9a-f]{40}/);
    const ready = await raw(`${stack.apiUrl}/ready`, 'GET', {});
    expect(ready.body.buildInfo).toEqual(hiddenBuild);
    const shown = await stack.extraApi({ exposeBuildInfo: true });
    try {
      expect((await raw(`${shown.url}/healthz`, 'GET', {})).body.buildInfo).toMatchObject({
        gitSha: expect.stringMatching(/^[0-9a-f]{40}$/),
        source: 'git',
      });
    } finally {
      await shown.close();
    }
  });

  it('rate limits /ready (it reaches the database and Temporal); /healthz stays free', async () => {
    const limited = await stack.extraApi({ rateLimitPerMinute: 2 });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) statuses.push((await raw(`${limited.url}/ready`, 'GET', {})).status);
      expect(statuses).toEqual([200, 200, 429]);
      expect((await raw(`${limited.url}/healthz`, 'GET', {})).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

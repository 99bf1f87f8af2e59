/**
 * The partner machinery over HTTP against the real stack: webhook registration, charge-scoped
 * webhooks, request signatures, rate limits, error envelopes and secret-free logs.
 */
import crypto from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import { signedRequestHeaders } from '../../core/signatures/requestSignature';
import { redactedPaths } from '../../core/logger';
import type { MerchantCredentials } from '../../db/identity/merchantAdmin';
import { sharedIntegrationStack, type SharedStack } from '../support/sharedStack';
import { assertLedgerInvariant } from '../support/ledger';

jest.setTimeout(120_000);

let stack: SharedStack;
let seller: MerchantCredentials;
let other: MerchantCredentials;

beforeAll(async () => {
  stack = await sharedIntegrationStack();
  seller = await stack.createMerchant({ name: 'Loja Contrato' });
  other = await stack.createMerchant({ name: 'Outra Loja' });
});

afterAll(async () => {
  await stack?.stop();
});

const key = () => `key-${crypto.randomUUID()}`;

function signedHeaders(
  creds: MerchantCredentials,
  method: string,
  path: string,
  body: string,
  opts: { ts?: number; secret?: string } = {},
) {
  return signedRequestHeaders({
    ...creds,
    method,
    path,
    rawBody: body,
    timestampMs: opts.ts,
    signingSecret: opts.secret,
  });
}

async function raw(url: string, method: string, headers: Record<string, string>, body?: string) {
  const res = await fetch(url, {
    method,
    headers: body !== undefined ? { 'content-type': 'application/json', ...headers } : headers,
    body,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

describe('webhook registration', () => {
  it('creates an endpoint whose secret is shown once and differs from the client secret', async () => {
    const created = await stack.api('POST', '/sellers/webhooks', {
      creds: seller,
      body: { url: 'https://merchant.example/hooks', events: ['charge.paid', 'charge.expired'] },
      headers: { 'idempotency-key': key() },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      merchantId: seller.merchantId,
      url: 'https://merchant.example/hooks',
      events: ['charge.paid', 'charge.expired'],
      active: true,
    });
    expect(created.body.secret).toMatch(/^whsec_/);
    expect(created.body.secret).not.toBe(seller.clientSecret);

    const read = await stack.api('GET', `/sellers/webhooks/${created.body.id}`, { creds: seller });
    expect(read.status).toBe(200);
    expect(read.body.secret).toBeUndefined();
    const list = await stack.api('GET', '/sellers/webhooks', { creds: seller });
    expect(list.body.webhooks.map((w: { id: string }) => w.id)).toContain(created.body.id);
    expect(JSON.stringify(list.body)).not.toContain(created.body.secret);
    expect(list.body.pagination).toMatchObject({ limit: 20, offset: 0, hasMore: false });
  });

  it('replays an idempotent create without the secret, and refuses the key with another payload', async () => {
    const idem = key();
    const body = { url: 'https://merchant.example/a', events: ['charge.paid'] };
    const first = await stack.api('POST', '/sellers/webhooks', {
      creds: seller,
      body,
      headers: { 'idempotency-key': idem },
    });
    const again = await stack.api('POST', '/sellers/webhooks', {
      creds: seller,
      body,
      headers: { 'idempotency-key': idem },
    });
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    expect(again.body.secret).toBeNull();
    const conflict = await stack.api('POST', '/sellers/webhooks', {
      creds: seller,
      body: { ...body, url: 'https://merchant.example/b' },
      headers: { 'idempotency-key': idem },
    });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error.code).toBe('DUPLICATE_IDEMPOTENCY_KEY');
  });

  it('updates, rotates the secret and disables on delete', async () => {
    const created = await stack.api('POST', '/sellers/webhooks', {
      creds: seller,
      body: { url: 'https://merchant.example/r', events: ['charge.paid'] },
    });
    const patched = await stack.api('PATCH', `/sellers/webhooks/${created.body.id}`, {
      creds: seller,
      body: { events: ['charge.paid', 'charge.cancelled'] },
    });
    expect(patched.body.events).toEqual(['charge.paid', 'charge.cancelled']);
    const rotated = await stack.api('POST', `/sellers/webhooks/${created.body.id}/rotate-secret`, { creds: seller });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(created.body.secret);
    expect(Date.parse(rotated.body.previousSecretExpiresAt)).toBeGreaterThan(Date.now());
    // A replayed rotation (same key) makes no second secret and shows none.
    const idem = { 'idempotency-key': key() };
    const rotatedOnce = await stack.api('POST', `/sellers/webhooks/${created.body.id}/rotate-secret`, {
      creds: seller,
      headers: idem,
    });
    const rotatedAgain = await stack.api('POST', `/sellers/webhooks/${created.body.id}/rotate-secret`, {
      creds: seller,
      headers: idem,
    });
    expect(rotatedOnce.body.secret).toMatch(/^whsec_/);
    expect(rotatedAgain.body).toMatchObject({ id: created.body.id, secret: null });
    expect(rotatedAgain.headers.get('idempotent-replayed')).toBe('true');
    const deleted = await stack.api('DELETE', `/sellers/webhooks/${created.body.id}`, { creds: seller });
    expect(deleted.body).toMatchObject({ active: false, disabledReason: 'deleted by merchant' });
  });

  it("never shows or changes another merchant's webhook (404)", async () => {
    const mine = await stack.api('POST', '/sellers/webhooks', {
      creds: seller,
      body: { url: 'https://merchant.example/x', events: ['charge.paid'] },
    });
    const id = mine.body.id;
    for (const [method, path, body] of [
      ['GET', `/sellers/webhooks/${id}`, undefined],
      ['PATCH', `/sellers/webhooks/${id}`, { active: false }],
      ['POST', `/sellers/webhooks/${id}/rotate-secret`, undefined],
      ['DELETE', `/sellers/webhooks/${id}`, undefined],
    ] as const) {
      const res = await stack.api(method, path, { creds: other, body });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    const list = await stack.api('GET', '/sellers/webhooks', { creds: other });
    expect(list.body.webhooks.map((w: { id: string }) => w.id)).not.toContain(id);
    expect((await stack.api('GET', `/sellers/webhooks/${id}`, { creds: seller })).body.active).toBe(true);
  });

  it.each([
    [{ url: 'ftp://merchant.example/x', events: ['charge.paid'] }, 'url'],
    [{ url: 'not a url', events: ['charge.paid'] }, 'url'],
    [{ url: 'https://user:pw@merchant.example/x', events: ['charge.paid'] }, 'url'],
    [{ url: 'https://merchant.example/x', events: ['charge.chargeback'] }, 'events.0'],
    [{ url: 'https://merchant.example/x', events: [] }, 'events'],
    [{ url: 'https://merchant.example/x', events: ['charge.paid'], secret: 'mine' }, ''],
  ])('refuses %j with 400 VALIDATION_ERROR', async (body, field) => {
    const res = await stack.api('POST', '/sellers/webhooks', { creds: seller, body });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    if (field) expect(res.body.error.details.fields.map((f: { field: string }) => f.field)).toContain(field);
  });

  it('refuses private and loopback destinations outside development', async () => {
    const prod = await stack.extraApi({ allowPrivateWebhookDestinations: false });
    try {
      for (const url of [
        'http://127.0.0.1:9/x',
        'http://10.1.2.3/x',
        'http://169.254.169.254/latest',
        'http://localhost/x',
        'http://[::1]/x',
      ]) {
        const res = await raw(
          `${prod.url}/sellers/webhooks`,
          'POST',
          { 'x-client-id': seller.clientId, 'x-client-secret': seller.clientSecret },
          JSON.stringify({ url, events: ['charge.paid'] }),
        );
        expect(res.status).toBe(400);
        expect(res.body.error.details.fields[0]).toMatchObject({
          field: 'url',
          message: expect.stringMatching(/private|loopback/),
        });
      }
      const pub = await raw(
        `${prod.url}/sellers/webhooks`,
        'POST',
        { 'x-client-id': seller.clientId, 'x-client-secret': seller.clientSecret },
        JSON.stringify({ url: 'https://93.184.216.34/hook', events: ['charge.paid'] }),
      );
      expect(pub.status).toBe(201);
    } finally {
      await prod.close();
    }
  });
});

describe('idempotency key expiry', () => {
  it('forgets a key after its time to live, so the key can be used for a new request', async () => {
    const shortLived = await stack.extraApi({ idempotencyTtlHours: 0 });
    try {
      const headers = {
        'x-client-id': seller.clientId,
        'x-client-secret': seller.clientSecret,
        'idempotency-key': key(),
      };
      const first = await raw(
        `${shortLived.url}/sellers/webhooks`,
        'POST',
        headers,
        JSON.stringify({ url: 'https://merchant.example/ttl1', events: ['charge.paid'] }),
      );
      const second = await raw(
        `${shortLived.url}/sellers/webhooks`,
        'POST',
        headers,
        JSON.stringify({ url: 'https://merchant.example/ttl2', events: ['charge.paid'] }),
      );
      expect(first.status).toBe(201);
      expect(second.status).toBe(201);
      expect(second.body.id).not.toBe(first.body.id);
    } finally {
      await shortLived.close();
    }
  });
});

describe('webhook_url on POST /sellers/pix', () => {
  it('creates a webhook scoped to the charge lifecycle, secret shown only in the 201', async () => {
    const idem = key();
    const body = { amountCents: 1_500, webhook_url: 'https://merchant.example/charge-hook' };
    const created = await stack.api('POST', '/sellers/pix', {
      creds: seller,
      body,
      headers: { 'x-idempotency-key': idem },
    });
    expect(created.status).toBe(201);
    expect(created.body.webhook).toMatchObject({
      url: 'https://merchant.example/charge-hook',
      events: ['charge.created', 'charge.paid', 'charge.expired', 'charge.cancelled', 'charge.refunded'],
      secret: expect.stringMatching(/^whsec_/),
    });
    const read = await stack.api('GET', `/sellers/pix/${created.body.id}`, { creds: seller });
    expect(read.body.webhook).toMatchObject({ id: created.body.webhook.id, secret: null });
    const replay = await stack.api('POST', '/sellers/pix', {
      creds: seller,
      body,
      headers: { 'x-idempotency-key': idem },
    });
    expect(replay.body.webhook.secret).toBeNull();
    const list = await stack.api('GET', '/sellers/webhooks?limit=100', { creds: seller });
    expect(list.body.webhooks.find((w: { id: string }) => w.id === created.body.webhook.id)).toMatchObject({
      chargeId: created.body.id,
    });
  });

  it('refuses an invalid webhook_url and creates nothing', async () => {
    const res = await stack.api('POST', '/sellers/pix', {
      creds: seller,
      body: { amountCents: 100, webhook_url: 'mailto:x@y' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fields[0].field).toBe('webhook_url');
  });
});

describe('request signatures', () => {
  const path = '/sellers/webhooks';

  it('accepts a correct signature, on GET (empty body) and POST (raw body)', async () => {
    const get = await raw(`${stack.apiUrl}${path}`, 'GET', signedHeaders(seller, 'GET', path, ''));
    expect(get.status).toBe(200);
    const body = JSON.stringify({ url: 'https://merchant.example/signed', events: ['charge.paid'] });
    const post = await raw(`${stack.apiUrl}${path}`, 'POST', signedHeaders(seller, 'POST', path, body), body);
    expect(post.status).toBe(201);
  });

  it.each([
    ['a wrong secret', () => signedHeaders(seller, 'GET', path, '', { secret: 'not-the-secret' }), path],
    ['an altered path', () => signedHeaders(seller, 'GET', '/sellers/pix', ''), path],
    ['an old timestamp', () => signedHeaders(seller, 'GET', path, '', { ts: Date.now() - 301_000 }), path],
    ['a future timestamp', () => signedHeaders(seller, 'GET', path, '', { ts: Date.now() + 301_000 }), path],
    ['a malformed signature', () => ({ ...signedHeaders(seller, 'GET', path, ''), 'x-gateway-signature': 'zz' }), path],
    ['a missing signature', () => ({ ...signedHeaders(seller, 'GET', path, ''), 'x-gateway-signature': '' }), path],
  ])('refuses %s with 401 INVALID_SIGNATURE', async (_name, headers, target) => {
    const res = await raw(`${stack.apiUrl}${target}`, 'GET', headers());
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('INVALID_SIGNATURE');
  });

  it('refuses an altered body', async () => {
    const signedBody = JSON.stringify({ url: 'https://merchant.example/a', events: ['charge.paid'] });
    const sentBody = JSON.stringify({ url: 'https://evil.example/a', events: ['charge.paid'] });
    const res = await raw(`${stack.apiUrl}${path}`, 'POST', signedHeaders(seller, 'POST', path, signedBody), sentBody);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('INVALID_SIGNATURE');
  });

  it('refuses a replay of a signature already used', async () => {
    const headers = signedHeaders(seller, 'GET', path, '');
    expect((await raw(`${stack.apiUrl}${path}`, 'GET', headers)).status).toBe(200);
    const replay = await raw(`${stack.apiUrl}${path}`, 'GET', headers);
    expect(replay.status).toBe(401);
    expect(replay.body.error.code).toBe('INVALID_SIGNATURE');
  });
});

describe('rate limits and error envelopes', () => {
  it('answers 429 RATE_LIMITED with RateLimit and Retry-After headers past the per-minute budget', async () => {
    const limited = await stack.extraApi({ rateLimitPerMinute: 5 });
    try {
      const statuses: number[] = [];
      let last: Awaited<ReturnType<typeof raw>> | undefined;
      for (let i = 0; i < 6; i++) {
        last = await raw(`${limited.url}/sellers/webhooks`, 'GET', {
          'x-client-id': seller.clientId,
          'x-client-secret': seller.clientSecret,
        });
        statuses.push(last.status);
      }
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
      expect(last!.body.error).toMatchObject({ code: 'RATE_LIMITED', traceId: expect.any(String) });
      expect(last!.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(last!.headers.get('ratelimit')).toBeTruthy();
      expect(last!.headers.get('ratelimit-policy')).toBeTruthy();
      expect((await raw(`${limited.url}/healthz`, 'GET', {})).status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('answers 413 PAYLOAD_TOO_LARGE in the envelope for a body over 1 MB', async () => {
    const big = JSON.stringify({ amountCents: 100, description: 'x'.repeat(1_100_000) });
    const res = await raw(
      `${stack.apiUrl}/sellers/pix`,
      'POST',
      { 'x-client-id': seller.clientId, 'x-client-secret': seller.clientSecret },
      big,
    );
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('PAYLOAD_TOO_LARGE');
  });
});

describe('logs', () => {
  it('carry the traceId and never a client secret, webhook secret, signature or authorization', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, cb) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        cb();
      },
    });
    const logger = pino({ level: 'debug', redact: { paths: redactedPaths, censor: '[REDACTED]' } }, sink);
    const logged = await stack.extraApi({ logger });
    try {
      const hooks = '/sellers/webhooks';
      const body = JSON.stringify({ url: 'https://merchant.example/logged', events: ['charge.paid'] });
      const headers: Record<string, string> = {
        ...signedHeaders(seller, 'POST', hooks, body),
        authorization: 'Bearer very-secret-token',
      };
      const created = await raw(`${logged.url}${hooks}`, 'POST', headers, body);
      expect(created.status).toBe(201);
      await raw(`${logged.url}${hooks}`, 'GET', { ...headers, 'x-gateway-signature': 'f'.repeat(64) });
      await raw(
        `${logged.url}/sellers/pix`,
        'POST',
        { 'x-client-id': seller.clientId, 'x-client-secret': 'sk_wrong_secret_value' },
        '{}',
      );
      await new Promise((r) => setTimeout(r, 50));
      const text = lines.join('\n');
      expect(lines.length).toBeGreaterThanOrEqual(3);
      for (const secret of [
        seller.clientSecret,
        created.body.secret,
        headers['x-gateway-signature'],
        'very-secret-token',
        'sk_wrong_secret_value',
      ]) {
        expect(text).not.toContain(secret);
      }
      for (const line of lines) expect(JSON.parse(line).traceId).toEqual(expect.any(String));
    } finally {
      await logged.close();
    }
  });
});

afterEach(async () => {
  await assertLedgerInvariant(stack.sequelize);
});

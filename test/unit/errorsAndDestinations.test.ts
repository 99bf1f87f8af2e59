import express from 'express';
import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { ConnectionRefusedError } from 'sequelize';
import { errorHandler, notFoundHandler } from '../../api/errors/errorHandler';
import { traceId } from '../../api/middleware/traceId';
import { assertWebhookDestination } from '../../api/events/destinationPolicy';
import { isPrivateAddress } from '../../core/net/destination';
import { signRequest, verifyRequestSignature } from '../../core/signatures/requestSignature';

describe('error handler', () => {
  it('answers a lost database connection with 503 SERVICE_UNAVAILABLE (retryable), not a 500', async () => {
    const app = express();
    app.use(traceId);
    app.get('/db', () => {
      throw new ConnectionRefusedError(new Error('connect ECONNREFUSED 10.0.0.5:5432'));
    });
    app.use(errorHandler(pino({ level: 'silent' })));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/db`);
      const text = await res.text();
      expect(res.status).toBe(503);
      expect(JSON.parse(text).error.code).toBe('SERVICE_UNAVAILABLE');
      expect(text).not.toContain('10.0.0.5');
    } finally {
      server.close();
    }
  });

  it('answers an unexpected error with 500 INTERNAL_ERROR and no internal detail', async () => {
    const app = express();
    app.use(traceId);
    app.get('/boom', () => {
      throw new Error('connection to db-internal-host:5432 refused at SecretModule.run');
    });
    app.use(notFoundHandler);
    app.use(errorHandler(pino({ level: 'silent' })));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/boom`);
      const text = await res.text();
      expect(res.status).toBe(500);
      expect(JSON.parse(text).error).toMatchObject({ code: 'INTERNAL_ERROR', traceId: res.headers.get('x-trace-id') });
      expect(text).not.toMatch(/db-internal-host|SecretModule|at /);
    } finally {
      server.close();
    }
  });
});

describe('webhook destination policy', () => {
  /** The merchant registering (no private receiver names it). */
  const merchant = '3f1c0d2e-5a6b-4c7d-8e9f-0a1b2c3d4e5f';
  const strict = (addresses: string[]) => ({
    allowPrivate: false,
    lookup: async () => addresses.map((address) => ({ address })),
  });

  it('classifies private and public addresses', () => {
    for (const ip of [
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '127.0.0.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fd00::1',
      'fe80::1',
      new URL('http://[::ffff:10.0.0.1]/').hostname.slice(1, -1) /* the parser's form: ::ffff:a00:1 */,
    ]) {
      expect(isPrivateAddress(ip)).toBe(true);
    }
    for (const ip of ['93.184.216.34', '8.8.8.8', '2606:4700::1111']) expect(isPrivateAddress(ip)).toBe(false);
  });

  it('refuses a hostname that resolves to a private address, or does not resolve', async () => {
    await expect(
      assertWebhookDestination('https://rebind.example/x', 'url', merchant, strict(['93.184.216.34', '10.0.0.5'])),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(
      assertWebhookDestination('https://nowhere.example/x', 'url', merchant, {
        allowPrivate: false,
        lookup: async () => Promise.reject(new Error('ENOTFOUND')),
      }),
    ).rejects.toMatchObject({ details: { fields: [{ field: 'url', message: 'host does not resolve' }] } });
    await expect(
      assertWebhookDestination('https://shop.example/x', 'url', merchant, strict(['93.184.216.34'])),
    ).resolves.toBe('https://shop.example/x');
  });

  it('allows local receivers in development', async () => {
    await expect(
      assertWebhookDestination('http://127.0.0.1:4000/hook', 'url', merchant, { allowPrivate: true }),
    ).resolves.toBe('http://127.0.0.1:4000/hook');
  });
});

describe('request signature', () => {
  const secret = 'sk_test_secret';
  const base = { method: 'POST', path: '/v1/payouts/batches', rawBody: '{"a":1}', secret };

  it('verifies the documented signed string', () => {
    const ts = 1_790_000_000_000;
    const sig = signRequest({ ...base, timestampMs: ts });
    expect(sig).toBe(createHmac('sha256', secret).update(`${ts}.POST./v1/payouts/batches.{"a":1}`).digest('hex'));
    expect(
      verifyRequestSignature({ ...base, timestampHeader: String(ts), signatureHeader: sig, nowMs: ts + 299_000 }),
    ).toEqual({ ok: true });
    expect(
      verifyRequestSignature({ ...base, timestampHeader: String(ts), signatureHeader: sig, nowMs: ts + 301_000 }),
    ).toEqual({ ok: false, reason: 'expired' });
    expect(
      verifyRequestSignature({ ...base, method: 'post', timestampHeader: String(ts), signatureHeader: sig, nowMs: ts }),
    ).toEqual({ ok: true });
    expect(
      verifyRequestSignature({
        ...base,
        rawBody: '{"a":2}',
        timestampHeader: String(ts),
        signatureHeader: sig,
        nowMs: ts,
      }),
    ).toEqual({ ok: false, reason: 'mismatch' });
    expect(
      verifyRequestSignature({ ...base, timestampHeader: String(ts), signatureHeader: sig.toUpperCase(), nowMs: ts }),
    ).toEqual({ ok: false, reason: 'malformed' });
  });
});

/** HttpPixProvider's error mapping and request shape, against a scripted fake PSP. */
import type { Server } from 'node:http';
import express from 'express';
import { HttpPixProvider } from '../../activities/provider/httpPixProvider';
import { ProviderError } from '../../core/provider';
import { chargeRequest, closeServer, listen, transferRequest } from './harness';

interface Scripted {
  status: number;
  body: string;
  contentType?: string;
}

describe('HttpPixProvider against a scripted server', () => {
  let server: Server;
  let provider: HttpPixProvider;
  let next: Scripted;
  const seen: Array<{ method: string; url: string; headers: Record<string, unknown>; body: unknown }> = [];

  beforeAll(async () => {
    const app = express();
    app.use(express.json());
    app.use((req, res) => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body: req.body });
      res
        .status(next.status)
        .type(next.contentType ?? 'application/json')
        .send(next.body);
    });
    const started = await listen(app);
    server = started.server;
    provider = new HttpPixProvider({ baseUrl: `${started.url}/`, apiKey: 'k_live_123', timeoutMs: 1_000 });
  });
  afterAll(() => closeServer(server));

  function answer(status: number, body: unknown, contentType?: string) {
    next = { status, body: typeof body === 'string' ? body : JSON.stringify(body), contentType };
  }

  async function failure(promise: Promise<unknown>): Promise<ProviderError> {
    const err = await promise.then(
      () => new Error('expected a rejection'),
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ProviderError);
    return err as ProviderError;
  }

  it('sends the bearer key, JSON body and Idempotency-Key = reference', async () => {
    const req = transferRequest();
    answer(503, { error: { code: 'X', message: 'down' } });
    await failure(provider.transfer(req));
    const call = seen[seen.length - 1];
    expect(call.method).toBe('POST');
    expect(call.url).toBe('/v1/transfers');
    expect(call.headers.authorization).toBe('Bearer k_live_123');
    expect(call.headers['idempotency-key']).toBe(req.reference);
    expect(call.body).toEqual(req);

    const charge = chargeRequest();
    await failure(provider.issueCharge(charge));
    expect(seen[seen.length - 1].headers['idempotency-key']).toBe(charge.reference);
    await failure(provider.closeCharge('id/with slash', 'CANCELLED'));
    expect(seen[seen.length - 1]).toMatchObject({
      url: '/v1/charges/id%2Fwith%20slash/close',
      body: { reason: 'CANCELLED' },
    });
  });

  it.each([
    [500, 'PROVIDER_UNAVAILABLE'],
    [502, 'PROVIDER_UNAVAILABLE'],
    [503, 'PROVIDER_UNAVAILABLE'],
    [504, 'PROVIDER_TIMEOUT'],
    [429, 'PROVIDER_UNAVAILABLE'],
    [408, 'PROVIDER_UNAVAILABLE'],
  ])('%i → transient %s', async (status, code) => {
    answer(status, { error: { code: 'WHATEVER', message: 'x' } });
    expect(await failure(provider.getCharge('c'))).toMatchObject({ code, transient: true, httpStatus: status });
  });

  it('4xx → permanent, code from the body or PROVIDER_REJECTED', async () => {
    answer(422, { error: { code: 'AMOUNT_TOO_HIGH', message: 'limit' } });
    expect(await failure(provider.getCharge('c'))).toMatchObject({
      code: 'AMOUNT_TOO_HIGH',
      transient: false,
      httpStatus: 422,
    });
    answer(400, '<html>bad</html>', 'text/html');
    expect(await failure(provider.getCharge('c'))).toMatchObject({
      code: 'PROVIDER_REJECTED',
      transient: false,
      httpStatus: 400,
    });
    answer(401, { error: { code: 'UNAUTHORIZED', message: 'no' } });
    expect(await failure(provider.getCharge('c'))).toMatchObject({ code: 'UNAUTHORIZED', transient: false });
  });

  it('409 → PROVIDER_IDEMPOTENCY_CONFLICT, permanent', async () => {
    answer(409, { error: { code: 'IDEMPOTENCY_CONFLICT', message: 'x' } });
    expect(await failure(provider.issueCharge(chargeRequest()))).toMatchObject({
      code: 'PROVIDER_IDEMPOTENCY_CONFLICT',
      transient: false,
    });
    answer(409, '');
    expect(await failure(provider.issueCharge(chargeRequest()))).toMatchObject({
      code: 'PROVIDER_IDEMPOTENCY_CONFLICT',
      transient: false,
    });
  });

  it('a 2xx that is not the expected shape → transient PROVIDER_BAD_RESPONSE', async () => {
    answer(200, '<html>proxy</html>', 'text/html');
    expect(await failure(provider.getCharge('c'))).toMatchObject({ code: 'PROVIDER_BAD_RESPONSE', transient: true });
    answer(201, { id: 'x' });
    expect(await failure(provider.issueCharge(chargeRequest()))).toMatchObject({ code: 'PROVIDER_BAD_RESPONSE' });
  });

  it('only a provider "not found" reads as null; a bare 404 is an error', async () => {
    answer(404, { error: { code: 'TRANSFER_NOT_FOUND', message: 'none' } });
    expect(await provider.getTransferByReference('r')).toBeNull();
    answer(404, { error: { code: 'CHARGE_NOT_FOUND', message: 'none' } });
    expect(await provider.findChargeByReference('r')).toBeNull();
    // A wrong baseUrl or proxy page must not look like "never paid".
    answer(404, 'Not Found', 'text/plain');
    expect(await failure(provider.getTransferByReference('r'))).toMatchObject({
      code: 'PROVIDER_REJECTED',
      transient: false,
      httpStatus: 404,
    });
    answer(404, { error: { code: 'NOT_FOUND', message: 'route not found' } });
    expect(await failure(provider.findChargeByReference('r'))).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('never puts the API key in error messages', async () => {
    answer(500, { error: { code: 'X', message: 'boom' } });
    const err = await failure(provider.getCharge('c'));
    expect(err.message).not.toContain('k_live_123');
  });
});

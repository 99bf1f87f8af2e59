/**
 * OAuth 2.0 client credentials against the (fake) PSP over mutual TLS: HTTP Basic with the id
 * and secret form-encoded, one token reused until shortly before it expires, one token request
 * for many concurrent callers, and a 401 answered by one renewal and one retry, never a loop.
 * The secret and the tokens appear in no error.
 */
import { ProviderError } from '../../core/provider';
import { pixApiTestbed, type PixApiTestbed } from '../support/pixApiTestbed';
import { problem } from '../support/fakePixPsp';

const TXID = '0123456789abcdef0123456789abcdef';

// Real TLS handshakes and a PKI made by openssl: slow when the whole suite shares two cores.
jest.setTimeout(120_000);

let bed: PixApiTestbed;

beforeAll(async () => {
  bed = await pixApiTestbed({ expiresInSeconds: 3600 });
});

afterAll(async () => {
  await bed.close();
});

beforeEach(() => {
  bed.psp.requests.length = 0;
  bed.psp.respond = null;
});

afterEach(() => {
  expect(bed.violations).toEqual([]);
});

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  const providerError = err as ProviderError;
  // Whatever went wrong, no secret and no token is in what the error says (compared as a
  // boolean: a failing toContain would print the secret into the test output).
  const said = `${providerError.message} ${providerError.detail ?? ''}`;
  expect([bed.clientSecret, ...bed.psp.tokensIssued].some((secret) => said.includes(secret))).toBe(false);
  return providerError;
}

describe('API Pix client credentials', () => {
  it('authenticates with HTTP Basic over the form-encoded id and secret, asking for client_credentials', async () => {
    await bed.client().getCob(TXID);
    const [tokenRequest] = bed.psp.tokenRequests();
    const form = (v: string) => new URLSearchParams({ v }).toString().slice(2);
    // Booleans, not toBe: a failure would print the header, i.e. the secret.
    expect(
      tokenRequest.headers.authorization ===
        `Basic ${Buffer.from(`${form(bed.clientId)}:${form(bed.clientSecret)}`).toString('base64')}`,
    ).toBe(true);
    expect(tokenRequest.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(new URLSearchParams(tokenRequest.body).get('grant_type')).toBe('client_credentials');
    expect(bed.psp.apiRequests()[0].headers.authorization === `Bearer ${bed.psp.tokensIssued.at(-1)}`).toBe(true);
  });

  it('reuses one token for consecutive calls', async () => {
    const client = bed.client();
    for (let i = 0; i < 5; i++) await client.getCob(TXID);
    expect(bed.psp.tokenCalls()).toBe(1);
    expect(new Set(bed.psp.apiRequests().map((r) => r.headers.authorization)).size).toBe(1);
  });

  it('asks for one token when many calls start at once (single flight)', async () => {
    const client = bed.client();
    await Promise.all(Array.from({ length: 10 }, () => client.getCob(TXID)));
    expect(bed.psp.tokenCalls()).toBe(1);
    expect(bed.psp.calls()).toHaveLength(10);
  });

  it('renews the token shortly before it expires, not after', async () => {
    let now = Date.parse('2026-03-01T12:00:00Z');
    const client = bed.client({ now: () => now });
    await client.getCob(TXID);
    now += (3600 - 61) * 1000; // still more than a minute left
    await client.getCob(TXID);
    expect(bed.psp.tokenCalls()).toBe(1);
    now += 2_000; // inside the last minute
    await client.getCob(TXID);
    expect(bed.psp.tokenCalls()).toBe(2);
  });

  it('on a 401 drops the token, gets a new one and retries once', async () => {
    const client = bed.client();
    await client.getCob(TXID);
    bed.psp.revoked.add(bed.psp.tokensIssued.at(-1)!);
    bed.psp.requests.length = 0;

    expect(await client.getCob(TXID)).toBeNull();
    expect(bed.psp.calls()).toEqual([`GET /api/v2/cob/${TXID}`, `GET /api/v2/cob/${TXID}`]);
    expect(bed.psp.tokenCalls()).toBe(1);
    expect(bed.psp.apiRequests()[1].headers.authorization === `Bearer ${bed.psp.tokensIssued.at(-1)}`).toBe(true);
  });

  it('renews once for many calls that hit the same revoked token', async () => {
    const client = bed.client();
    await client.getCob(TXID);
    bed.psp.revoked.add(bed.psp.tokensIssued.at(-1)!);
    bed.psp.requests.length = 0;
    await Promise.all(Array.from({ length: 5 }, () => client.getCob(TXID)));
    expect(bed.psp.tokenCalls()).toBe(1);
    expect(bed.psp.calls()).toHaveLength(10);
  });

  it('gives up after one retry when the PSP keeps answering 401: permanent PROVIDER_AUTH_FAILED', async () => {
    bed.psp.respond = (req) => (req.url.startsWith('/api/v2/') ? problem(401, 'AcessoNegado') : undefined);
    const err = await failure(bed.client().getCob(TXID));
    expect(err).toMatchObject({ code: 'PROVIDER_AUTH_FAILED', transient: false, httpStatus: 401 });
    expect(bed.psp.calls()).toHaveLength(2);
    expect(bed.psp.tokenCalls()).toBe(2);
  });

  it('reports refused client credentials as permanent, with the OAuth error code and not the secret', async () => {
    const err = await failure(bed.client({ clientSecret: `${bed.clientSecret}-wrong` }).getCob(TXID));
    expect(err).toMatchObject({ code: 'PROVIDER_AUTH_FAILED', transient: false, httpStatus: 401 });
    expect(err.message).toContain('invalid_client');
    expect(err.message).not.toContain('client authentication failed'); // the PSP's own words: detail only
    expect(err.detail).toContain('client authentication failed');
    expect(bed.psp.calls()).toEqual([]);
  });

  it('treats an unavailable token endpoint as transient, honouring Retry-After', async () => {
    bed.psp.respond = (req) =>
      req.url === '/oauth/token' ? { status: 503, raw: 'down', headers: { 'retry-after': '7' } } : undefined;
    const err = await failure(bed.client().getCob(TXID));
    expect(err).toMatchObject({ code: 'PROVIDER_UNAVAILABLE', transient: true, retryAfterMs: 7000 });
    expect(bed.psp.calls()).toEqual([]);
  });

  it('treats a token answer without a bearer token as transient, and sends nothing to the API', async () => {
    bed.psp.respond = (req) =>
      req.url === '/oauth/token' ? { status: 200, body: { access_token: 'x', token_type: 'mac' } } : undefined;
    const err = await failure(bed.client().getCob(TXID));
    expect(err).toMatchObject({ code: 'PROVIDER_BAD_RESPONSE', transient: true });
    expect(bed.psp.calls()).toEqual([]);
  });
});

describe('a client certificate that is not the account’s', () => {
  it('is its own permanent PROVIDER_CERTIFICATE_REFUSED when the token endpoint says so (certificado_invalido), and sends nothing to the API', async () => {
    bed.psp.respond = (req) =>
      req.url === '/oauth/token'
        ? { status: 401, body: { error: 'certificado_invalido', error_description: 'certificado de outra conta' } }
        : undefined;
    const err = await failure(bed.client().getCob(TXID));
    expect(err).toMatchObject({ code: 'PROVIDER_CERTIFICATE_REFUSED', transient: false, httpStatus: 401 });
    expect(err.message).toContain('certificado_invalido');
    expect(err.message).not.toContain('certificado de outra conta'); // the PSP's own words: detail only
    expect(err.detail).toBe('certificado de outra conta');
    expect(bed.psp.calls()).toEqual([]);
  });
});

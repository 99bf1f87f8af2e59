/** API Pix's OAuth2 client credentials: the token endpoint, bearer tokens that expire, scopes, and faults on /api/v2. */
import { DEV_PIX_CLIENT_ID, DEV_PIX_CLIENT_SECRET } from '../../sandbox/config';
import { basic, cobBody, newTxid, requestToken, startPixApiSandbox, type PixApiHarness } from './pixApiHarness';

const PROBLEM = 'application/problem+json';

describe('API Pix token endpoint (POST /oauth/token)', () => {
  let h: PixApiHarness;
  beforeAll(async () => {
    h = await startPixApiSandbox({ pixTokenTtlSeconds: 1 });
  });
  afterAll(async () => {
    await h.close();
  });

  it('grants a Bearer token to the client authenticated with HTTP Basic, with every scope by default', async () => {
    const granted = await requestToken(h.url);
    expect(granted.status).toBe(200);
    expect(granted.headers.get('cache-control')).toBe('no-store');
    expect(granted.json).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 1,
      scope:
        'cob.read cob.write pix.read pix.write webhook.read webhook.write rec.read rec.write solicrec.read solicrec.write ' +
        'cobr.read cobr.write payloadlocationrec.read payloadlocationrec.write webhookrec.read webhookrec.write ' +
        'webhookcobr.read webhookcobr.write',
    });
    expect(granted.json.access_token.length).toBeGreaterThanOrEqual(40);
    // Form-encoded credentials in Basic (RFC 6749 2.3.1) are decoded.
    const encoded = await requestToken(h.url, {
      authorization: basic(encodeURIComponent(DEV_PIX_CLIENT_ID), encodeURIComponent(DEV_PIX_CLIENT_SECRET)),
    });
    expect(encoded.status).toBe(200);
  });

  it('refuses bad client credentials, a missing grant, another grant type, a JSON body and an unknown scope, in OAuth error JSON', async () => {
    const wrongSecret = await requestToken(h.url, { authorization: basic(DEV_PIX_CLIENT_ID, 'wrong') });
    expect(wrongSecret.status).toBe(401);
    expect(wrongSecret.json.error).toBe('invalid_client');
    expect(wrongSecret.headers.get('www-authenticate')).toMatch(/^Basic/);
    expect((await requestToken(h.url, { authorization: basic('someone', DEV_PIX_CLIENT_SECRET) })).json.error).toBe(
      'invalid_client',
    );
    expect((await requestToken(h.url, { authorization: 'Bearer abc' })).status).toBe(401);
    // The secret in the body instead of Basic is not accepted.
    const inBody = await requestToken(h.url, {
      authorization: '',
      body: `grant_type=client_credentials&client_id=${DEV_PIX_CLIENT_ID}&client_secret=${DEV_PIX_CLIENT_SECRET}`,
    });
    expect(inBody.status).toBe(401);

    const noGrant = await requestToken(h.url, { body: 'scope=cob.read' });
    expect([noGrant.status, noGrant.json.error]).toEqual([400, 'invalid_request']);
    const password = await requestToken(h.url, { body: 'grant_type=password' });
    expect([password.status, password.json.error]).toEqual([400, 'unsupported_grant_type']);
    const json = await requestToken(h.url, {
      body: JSON.stringify({ grant_type: 'client_credentials' }),
      contentType: 'application/json',
    });
    expect([json.status, json.json.error]).toEqual([400, 'invalid_request']);
    const scope = await requestToken(h.url, { body: 'grant_type=client_credentials&scope=cob.read%20cobv.write' });
    expect([scope.status, scope.json.error]).toEqual([400, 'invalid_scope']);
    expect(scope.json.error_description).toContain('cobv.write');
  });

  it('answers 401 problem+json to a missing, unknown or expired bearer token on /api/v2', async () => {
    const txid = newTxid();
    const missing = await fetch(`${h.url}/api/v2/cob/${txid}`);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('content-type')).toContain(PROBLEM);
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await missing.json()).toMatchObject({
      type: 'about:blank',
      title: 'Unauthorized',
      status: 401,
      detail: expect.any(String),
    });

    const unknown = await h.pix('GET', `/cob/${txid}`, undefined, 'not-a-token');
    expect([unknown.status, unknown.contentType]).toEqual([401, expect.stringContaining(PROBLEM)]);

    // A fresh token works, then expires (lifetime 1 s here).
    const fresh = (await requestToken(h.url)).json.access_token as string;
    const before = await h.pix('PUT', `/cob/${txid}`, cobBody(), fresh);
    expect(before.status).toBe(201);
    await new Promise((r) => setTimeout(r, 1_100));
    const after = await h.pix('GET', `/cob/${txid}`, undefined, fresh);
    expect(after.status).toBe(401);
    expect(after.json.detail).toMatch(/expirou/);
    // Nothing was read for the expired token, and a new one reads the cob.
    const renewed = (await requestToken(h.url)).json.access_token as string;
    expect((await h.pix('GET', `/cob/${txid}`, undefined, renewed)).status).toBe(200);
  });

  it('grants only the scopes asked for, and a call outside them is 403 AcessoNegado', async () => {
    const readOnly = await requestToken(h.url, { body: 'grant_type=client_credentials&scope=cob.read%20pix.read' });
    expect(readOnly.json.scope).toBe('cob.read pix.read');
    const put = await h.pix('PUT', `/cob/${newTxid()}`, cobBody(), readOnly.json.access_token);
    expect(put.status).toBe(403);
    expect(put.json).toMatchObject({ type: 'https://pix.bcb.gov.br/api/v2/error/AcessoNegado', status: 403 });
  });
});

describe('faults on API Pix', () => {
  it('answer an unprocessed 503 ServicoIndisponivel problem, then let the retry through (the /v1 fault middleware)', async () => {
    const h = await startPixApiSandbox();
    try {
      expect((await h.call('POST', '/sandbox/faults', { failFirst: 1 })).status).toBe(200);
      const txid = newTxid();
      const first = await h.pix('PUT', `/cob/${txid}`, cobBody());
      expect(first.status).toBe(503);
      expect(first.contentType).toContain(PROBLEM);
      expect(first.json).toMatchObject({
        type: 'https://pix.bcb.gov.br/api/v2/error/ServicoIndisponivel',
        status: 503,
      });
      // Nothing was created by the refused call.
      expect([...h.sandbox.state.charges.values()].some((r) => r.charge.txid === txid)).toBe(false);
      expect((await h.pix('PUT', `/cob/${txid}`, cobBody())).status).toBe(201);
      // The /v1 API keeps its own error shape under the same faults.
      await h.call('POST', '/sandbox/faults', { errorRate: 1 });
      const v1 = await h.call('GET', '/v1/charges/sbx_ch_x', undefined, { authorization: 'Bearer sbx_test_api_key' });
      expect([v1.status, v1.json.error.code]).toEqual([503, 'SANDBOX_FAULT']);
    } finally {
      await h.close();
    }
  });
});

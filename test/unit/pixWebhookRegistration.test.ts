/**
 * Registering the gateway's API Pix notification URL (workers/ensurePixWebhook.ts, run at worker
 * start and by `npm run gateway -- provider webhook register`): PUT /webhook/{chave} with
 * <PUBLIC_BASE_URL>/webhooks/pix-api/<secret>, once; an identical registration is left alone.
 * Against the fake PSP over mutual TLS, each request checked against the BCB document.
 */
import { ensurePixWebhook } from '../../workers/ensurePixWebhook';
import { connectionWebhookUrl, pixWebhookUrl, withoutWebhookSecret } from '../../core/pix/callbackPath';
import { providerWebhookHelp } from '../../cli/providerWebhook';
import { pixApiTestbed, type PixApiTestbed } from '../support/pixApiTestbed';
import { ProviderError } from '../../core/provider';

jest.setTimeout(120_000);

const CHAVE = '11222333000181';
const SECRET = 'a'.repeat(20) + 'B-_c'.repeat(4);

let bed: PixApiTestbed;

beforeAll(async () => {
  bed = await pixApiTestbed();
});

afterAll(async () => {
  await bed.close();
});

it('registers <PUBLIC_BASE_URL>/webhooks/pix-api/<secret> for our key once, and leaves an identical registration alone', async () => {
  const client = bed.client();
  const settings = { receivingKey: CHAVE, publicBaseUrl: 'https://gateway.example/', webhookSecret: SECRET };
  expect(await ensurePixWebhook(client, settings)).toBe('registered');
  expect(bed.psp.webhooks.get(CHAVE)?.webhookUrl).toBe(`https://gateway.example/webhooks/pix-api/${SECRET}`);
  expect(await ensurePixWebhook(client, settings)).toBe('already registered');
  expect(bed.psp.calls().filter((c) => c.startsWith('PUT'))).toEqual([`PUT /api/v2/webhook/${CHAVE}`]);
  // Another URL (a new secret, a new host) replaces it.
  expect(await ensurePixWebhook(client, { ...settings, publicBaseUrl: 'https://other.example' })).toBe('registered');
  expect(bed.violations).toEqual([]);
});

it('asks again after a transient answer (a PSP slow at boot), and throws a refusal at once', async () => {
  const settings = { receivingKey: CHAVE, publicBaseUrl: 'https://gateway.example', webhookSecret: SECRET };
  const quick = { attempts: 3, firstWaitMs: 1 };
  const slowOnce = bed.client();
  let failures = 2;
  const flaky = {
    getWebhook: async (key: string) => {
      if (failures-- > 0) throw new ProviderError('GET /webhook: no answer within 2000ms', 'TIMEOUT', true);
      return slowOnce.getWebhook(key);
    },
    putWebhook: (key: string, url: string) => slowOnce.putWebhook(key, url),
  };
  expect(await ensurePixWebhook(flaky, settings, quick)).toMatch(/registered/);
  expect(bed.psp.webhooks.get(CHAVE)?.webhookUrl).toBe(`https://gateway.example/webhooks/pix-api/${SECRET}`);

  let asked = 0;
  const refusing = {
    getWebhook: async () => {
      asked++;
      throw new ProviderError('GET /webhook: 403', 'ACESSO_NEGADO', false, 403);
    },
    putWebhook: async () => undefined,
  };
  await expect(ensurePixWebhook(refusing, settings, quick)).rejects.toThrow('403');
  expect(asked).toBe(1);

  let timeouts = 0;
  const down = {
    getWebhook: async () => {
      timeouts++;
      throw new ProviderError('GET /webhook: no answer within 2000ms', 'TIMEOUT', true);
    },
    putWebhook: async () => undefined,
  };
  await expect(ensurePixWebhook(down, settings, quick)).rejects.toThrow('no answer');
  expect(timeouts).toBe(3);
});

it('writes the secret segment out of logged paths', () => {
  expect(pixWebhookUrl('http://127.0.0.1:3000', SECRET)).toBe(`http://127.0.0.1:3000/webhooks/pix-api/${SECRET}`);
  expect(withoutWebhookSecret(`/webhooks/pix-api/${SECRET}/pix`)).toBe('/webhooks/pix-api/:secret/pix');
  expect(withoutWebhookSecret(`/webhooks/pix-api/${SECRET}`)).toBe('/webhooks/pix-api/:secret');
  expect(withoutWebhookSecret('/sellers/pix/abc')).toBe('/sellers/pix/abc');
});

it("writes a merchant connection's secret segment out of logged paths, keeping the connection id", () => {
  const id = '6f1c2d3e-4a5b-4c6d-8e7f-901a2b3c4d5e';
  expect(connectionWebhookUrl('https://gateway.example/', id, SECRET)).toBe(
    `https://gateway.example/webhooks/pix-api/connections/${id}/${SECRET}`,
  );
  expect(withoutWebhookSecret(`/webhooks/pix-api/connections/${id}/${SECRET}/pix`)).toBe(
    `/webhooks/pix-api/connections/${id}/:secret/pix`,
  );
  expect(withoutWebhookSecret(`/webhooks/pix-api/connections/${id}/${SECRET}`)).toBe(
    `/webhooks/pix-api/connections/${id}/:secret`,
  );
  // Not an id where the id goes (a caller that put the secret there): blanked as well.
  expect(withoutWebhookSecret(`/webhooks/pix-api/connections/${SECRET}/pix`)).toBe(
    '/webhooks/pix-api/connections/:connectionId/:secret',
  );
  expect(withoutWebhookSecret(`/webhooks/pix-api/connections/${SECRET}`)).toBe(
    '/webhooks/pix-api/connections/:connectionId',
  );
});

it('the CLI’s --help names every API Pix variable', () => {
  for (const name of [
    'PIX_API_BASE_URL',
    'PIX_API_TOKEN_URL',
    'PIX_API_CLIENT_ID',
    'PIX_API_CLIENT_SECRET',
    'PIX_API_CERT_FILE',
    'PIX_API_KEY_FILE',
    'PIX_API_PFX_FILE',
    'PIX_API_PFX_PASSPHRASE',
    'PIX_API_CA_FILE',
    'PIX_RECEIVING_KEY',
    'PIX_WEBHOOK_SECRET',
  ]) {
    expect(providerWebhookHelp).toContain(name);
  }
});

/**
 * Efí's API Cobranças list at the sandbox over real HTTP (GET /cobrancas/v1/charges): what the
 * gateway reads to find a boleto by our reference before issuing it, and what its sweep reads to
 * find billets paid whose notice was lost (`status=paid&date_of=payment`, paged by `limit` and
 * `page`). A payment with `callback: false` is paid and not notified.
 */
import { isoDateInBrasilia } from '../../core/boletos/pdf/format';
import { startEfiSandbox, type EfiHarness } from './efiHarness';
import { basic } from './pixApiHarness';

let h: EfiHarness;
let token: string;

beforeAll(async () => {
  h = await startEfiSandbox();
  const made = await h.call('POST', '/sandbox/accounts', {});
  expect(made.status).toBe(201);
  const res = await fetch(`${h.url}/cobrancas/v1/authorize`, {
    method: 'POST',
    headers: { authorization: basic(made.json.clientId, made.json.clientSecret), 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials' }),
  });
  expect(res.status).toBe(200);
  token = ((await res.json()) as { access_token: string }).access_token;
});
afterAll(async () => {
  await h.close();
});

// Yesterday to tomorrow (Brasília): the account is this file's own, so the range holds exactly its
// boletos even if the test runs across midnight.
const DAY_MS = 86_400_000;
const fromDay = isoDateInBrasilia(new Date(Date.now() - DAY_MS));
const toDay = isoDateInBrasilia(new Date(Date.now() + DAY_MS));

async function issue(reference: string): Promise<number> {
  const made = await h.efi(
    'POST',
    '/cobrancas/v1/charge/one-step',
    {
      items: [{ name: `Cobrança ${reference}`, value: 1_500, amount: 1 }],
      metadata: { custom_id: reference, notification_url: 'http://127.0.0.1:9/notices' },
      payment: { banking_billet: { customer: { name: 'Pagador', cpf: '52998224725' }, expire_at: '2099-12-31' } },
    },
    token,
  );
  expect(made.status).toBe(200);
  return made.json.data.charge_id as number;
}

function list(query: string) {
  return h.efi(
    'GET',
    `/cobrancas/v1/charges?charge_type=billet&begin_date=${fromDay}&end_date=${toDay}&${query}`,
    undefined,
    token,
  );
}

it('lists the billets paid on a day, page by page; an unpaid one is not listed by payment day; bad filters are 400', async () => {
  const ids = [await issue('ref-a'), await issue('ref-b'), await issue('ref-c')];
  expect((await h.call('POST', '/sandbox/boletos/ref-a/pay', {})).status).toBe(200);
  const lost = await h.call('POST', '/sandbox/boletos/ref-b/pay', { callback: false });
  expect(lost.status).toBe(200);
  // The lost one was paid and not notified.
  expect((await h.call('GET', `/sandbox/callbacks?boletoId=${lost.json.id as string}`)).json.attempts).toEqual([]);

  const paid = await list('status=paid&date_of=payment');
  expect(paid.status).toBe(200);
  expect(
    (paid.json.data as { id: number; custom_id: string; status: string }[]).map((c) => [c.id, c.custom_id, c.status]),
  ).toEqual([
    [ids[0], 'ref-a', 'paid'],
    [ids[1], 'ref-b', 'paid'],
  ]);
  const second = await list('status=paid&date_of=payment&limit=1&page=2');
  expect((second.json.data as { custom_id: string }[]).map((c) => c.custom_id)).toEqual(['ref-b']);
  expect((await list('status=paid&date_of=payment&limit=1&page=3')).json.data).toEqual([]);
  // By creation day, every one; by status, the waiting one.
  expect((await list('')).json.data).toHaveLength(3);
  expect(((await list('status=waiting')).json.data as { custom_id: string }[]).map((c) => c.custom_id)).toEqual([
    'ref-c',
  ]);

  for (const bad of ['status=pago', 'date_of=expire', 'limit=0', 'limit=101', 'page=0', 'page=x']) {
    const refused = await list(bad);
    expect({ bad, status: refused.status, error: refused.json?.error }).toEqual({
      bad,
      status: 400,
      error: 'validation_error',
    });
  }
});

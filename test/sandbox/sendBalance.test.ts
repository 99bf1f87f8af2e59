/**
 * The balance an Efí send is checked against (AM04), kept between sends: a send reads its
 * account's balance without going over every send made before it (a 100,000-item payout batch
 * made each send slower than the last), and the balance read is still the one computed afresh:
 * sends taking it down to a refusal, a send to another account of the PSP credited only once its
 * settle time has passed (on the PSP's clock), a recipient's return, a balance set by a test.
 */
import { basic, requestToken } from './pixApiHarness';
import { newIdEnvio, RECEIVING_KEY, sendBody, startEfiSandbox, type EfiHarness } from './efiHarness';

let h: EfiHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function saldo(harness: EfiHarness, token?: string): Promise<string> {
  const got = await harness.efi('GET', '/v2/gn/saldo', undefined, token);
  expect(got.status).toBe(200);
  return got.json.saldo as string;
}

async function send(harness: EfiHarness, body: unknown, token?: string): Promise<string> {
  const idEnvio = newIdEnvio();
  const put = await harness.efi('PUT', `/v3/gn/pix/${idEnvio}`, body, token);
  expect(put.status).toBe(201);
  return idEnvio;
}

async function outcome(harness: EfiHarness, idEnvio: string): Promise<{ status: string; codigo?: string }> {
  const got = await harness.efi('GET', `/v2/gn/pix/enviados/id-envio/${idEnvio}`);
  // The GET shows no reason; the sandbox's record (and the send's notice) has it.
  const erro = harness.sandbox.state.efiSends.get(idEnvio)?.erro;
  return { status: got.json.status, ...(erro ? { codigo: erro.codigo } : {}) };
}

it('a send checks the balance without reading every send made before it', async () => {
  h = await startEfiSandbox({ efiSendSettleMs: 0, efiOpeningBalanceCents: 1_000_000 });
  const sends = h.sandbox.state.efiSends;
  const values = sends.values.bind(sends);
  let reads = 0;
  sends.values = () => {
    reads++;
    return values();
  };
  for (let i = 0; i < 150; i++) await send(h, sendBody({ valor: '1.00' }));
  // One reading of the sends for the first check; each later check is the last one less the send.
  expect(reads).toBeLessThanOrEqual(2);
  expect(await saldo(h)).toBe('9850.00');
});

it('the balance a send is checked against is the one computed afresh, across sends, a return and a set balance', async () => {
  let clock = Date.now();
  h = await startEfiSandbox({ efiSendSettleMs: 1_000, efiOpeningBalanceCents: 5_000, now: () => new Date(clock) });
  const first = await send(h, sendBody({ valor: '20.00' }));
  const second = await send(h, sendBody({ valor: '20.00' }));
  const refused = await send(h, sendBody({ valor: '20.00' }));
  expect(await saldo(h)).toBe('10.00');
  clock += 1_000;
  expect(await outcome(h, first)).toEqual({ status: 'REALIZADO' });
  expect(await outcome(h, second)).toEqual({ status: 'REALIZADO' });
  expect(await outcome(h, refused)).toEqual({ status: 'NAO_REALIZADO', codigo: 'AM04' });

  // A return from the recipient brings money back; the next send sees it.
  expect((await h.call('POST', `/sandbox/efi/enviados/${second}/devolucao`, { amountCents: 1_500 })).status).toBe(201);
  expect(await saldo(h)).toBe('25.00');
  expect(await outcome(h, await send(h, sendBody({ valor: '25.00' })))).toEqual({ status: 'EM_PROCESSAMENTO' });
  expect(await saldo(h)).toBe('0.00');

  // A balance set by a test, then a send of all of it and one of a cent more.
  expect((await h.call('POST', '/sandbox/efi/saldo', { cents: 3_000 })).status).toBe(200);
  await send(h, sendBody({ valor: '30.00' }));
  const beyond = await send(h, sendBody({ valor: '0.01' }));
  clock += 1_000;
  expect(await outcome(h, beyond)).toEqual({ status: 'NAO_REALIZADO', codigo: 'AM04' });
});

it("a send to another account of the PSP credits it once the PSP's clock passes its settle time, not before", async () => {
  let clock = Date.now();
  h = await startEfiSandbox({ efiSendSettleMs: 1_000, efiOpeningBalanceCents: 5_000, now: () => new Date(clock) });
  const made = await h.call('POST', '/sandbox/accounts', {});
  expect(made.status).toBe(201);
  const granted = await requestToken(h.url, { authorization: basic(made.json.clientId, made.json.clientSecret) });
  const theirs = granted.json.access_token as string;
  expect(await saldo(h, theirs)).toBe('0.00');

  await send(h, { ...sendBody({ valor: '30.00' }), favorecido: { chave: made.json.key } });
  expect(await saldo(h, theirs)).toBe('0.00');
  expect(await saldo(h)).toBe('20.00');
  clock += 999;
  expect(await saldo(h, theirs)).toBe('0.00');
  clock += 1;
  expect(await saldo(h, theirs)).toBe('30.00');
  // The clock set back (a test's clock may be): the send is in processing again.
  clock -= 500;
  expect(await saldo(h, theirs)).toBe('0.00');
  expect(await saldo(h)).toBe('20.00');
  expect(RECEIVING_KEY).not.toBe(made.json.key);
});

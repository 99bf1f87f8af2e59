/**
 * The sandbox's many accounts over real HTTP: POST /sandbox/accounts makes one (client id and
 * secret, a key, an opening balance), /oauth/token binds a token to the account whose credentials
 * were given, and every API Pix and Efí route then acts on that account only: its cobs, Pix,
 * webhooks, sends, infractions and balance; another account's are not found. A cob may name only a
 * key of its account; a payment credits the cob's account only; a send debits its sender and is
 * refused (AM04) beyond the balance. The default account (the configuration's) keeps behaving as
 * before: the rest of test/sandbox runs against it unchanged.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startReceiver, type Receiver } from '../support/receiver';
import { newIdEnvio, RECEIVING_KEY, sendBody, startEfiSandbox, type EfiHarness } from './efiHarness';
import { startSandbox } from './harness';
import { basic, cobBody, createCob, instant, newTxid, requestToken, type HttpAnswer } from './pixApiHarness';

interface TestAccount {
  id: string;
  clientId: string;
  clientSecret: string;
  key: string;
  token: string;
}

let h: EfiHarness;
let receiver: Receiver;

beforeAll(async () => {
  h = await startEfiSandbox();
  receiver = await startReceiver();
});
afterAll(async () => {
  await h.close();
  await receiver.close();
});

async function tokenFor(url: string, clientId: string, clientSecret: string): Promise<string> {
  const granted = await requestToken(url, { authorization: basic(clientId, clientSecret) });
  expect(granted.status).toBe(200);
  return granted.json.access_token as string;
}

async function newAccount(body: Record<string, unknown> = {}): Promise<TestAccount> {
  const made = await h.call('POST', '/sandbox/accounts', body);
  expect(made.status).toBe(201);
  const { id, clientId, clientSecret, key } = made.json;
  return { id, clientId, clientSecret, key, token: await tokenFor(h.url, clientId, clientSecret) };
}

/** Reais with two decimals, as GET /v2/gn/saldo answers them. */
async function saldo(token: string): Promise<string> {
  const got = await h.efi('GET', '/v2/gn/saldo', undefined, token);
  expect(got.status).toBe(200);
  return got.json.saldo as string;
}

async function paidCob(account: TestAccount, valor = '25.00'): Promise<{ txid: string; e2e: string }> {
  const txid = await createCob(h, account.token, account.key, valor);
  const paid = await h.call('POST', `/sandbox/charges/${txid}/pay`, {});
  expect(paid.status).toBe(200);
  return { txid, e2e: paid.json.endToEndId };
}

async function settled(idEnvio: string, token: string, status: string): Promise<any> {
  const deadline = Date.now() + 3_000;
  for (;;) {
    const got = await h.efi('GET', `/v2/gn/pix/enviados/id-envio/${idEnvio}`, undefined, token);
    if (got.json?.status === status) return got.json;
    if (Date.now() > deadline) throw new Error(`send ${idEnvio} never read ${status}: ${got.text}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function problemType(answer: HttpAnswer): string {
  return String(answer.json?.type ?? '').replace('https://pix.bcb.gov.br/api/v2/error/', '');
}

describe('POST and GET /sandbox/accounts', () => {
  it('makes an account with its own credentials, key and opening balance, and reads it without the secret', async () => {
    const made = await h.call('POST', '/sandbox/accounts', { openingBalanceCents: 12_345, name: 'Loja Um' });
    expect(made.status).toBe(201);
    expect(made.json).toMatchObject({
      id: expect.stringMatching(/^acc_/),
      clientId: expect.any(String),
      clientSecret: expect.any(String),
      key: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
      keys: [made.json.key],
      name: 'Loja Um',
      cnpj: expect.stringMatching(/^\d{14}$/),
      balanceCents: 12_345,
      saldo: '123.45',
    });
    const read = await h.call('GET', `/sandbox/accounts/${made.json.id}`);
    expect(read.status).toBe(200);
    // Reads carry neither the secret nor the account's certificate and key (answered once, at creation).
    expect(read.json).toEqual({
      ...made.json,
      clientSecret: undefined,
      key: undefined,
      certificatePem: undefined,
      privateKeyPem: undefined,
    });
    expect(JSON.stringify(read.json)).not.toContain(made.json.clientSecret);
    expect(JSON.stringify(read.json)).not.toContain('PRIVATE KEY');
    const all = await h.call('GET', '/sandbox/accounts');
    expect(all.json.accounts.map((a: { id: string }) => a.id)).toEqual(
      expect.arrayContaining(['default', made.json.id]),
    );
    expect(JSON.stringify(all.json)).not.toContain(made.json.clientSecret);

    const token = await tokenFor(h.url, made.json.clientId, made.json.clientSecret);
    expect(await saldo(token)).toBe('123.45');
    const wrong = await requestToken(h.url, { authorization: basic(made.json.clientId, 'not-the-secret') });
    expect([wrong.status, wrong.json.error]).toEqual([401, 'invalid_client']);
  });

  it('takes the keys asked for, refuses a key another account holds and reads the default account', async () => {
    const made = await h.call('POST', '/sandbox/accounts', { keys: ['loja.dois@example.com', '+5511987654321'] });
    expect(made.status).toBe(201);
    expect(made.json.keys).toEqual(['loja.dois@example.com', '+5511987654321']);
    const again = await h.call('POST', '/sandbox/accounts', { keys: ['loja.dois@example.com'] });
    expect([again.status, again.json.error.code]).toEqual([409, 'PIX_KEY_TAKEN']);
    const defaults = await h.call('POST', '/sandbox/accounts', { keys: [RECEIVING_KEY] });
    expect([defaults.status, defaults.json.error.code]).toEqual([409, 'PIX_KEY_TAKEN']);
    const bad = await h.call('POST', '/sandbox/accounts', { keys: ['not a key'], extra: 1 });
    expect([bad.status, bad.json.error.code]).toEqual([400, 'VALIDATION_ERROR']);
    const negative = await h.call('POST', '/sandbox/accounts', { openingBalanceCents: -1 });
    expect(negative.status).toBe(400);

    const def = await h.call('GET', '/sandbox/accounts/default');
    expect(def.json).toMatchObject({ id: 'default', keys: [RECEIVING_KEY], cnpj: '11222333000181' });
    expect((await h.call('GET', '/sandbox/accounts/acc_nope')).json.error.code).toBe('ACCOUNT_NOT_FOUND');
  });
});

describe('each account sees only its own', () => {
  it('cobs: another account reads, revises and lists none of them, and cannot make one for a key not its own', async () => {
    const a = await newAccount();
    const b = await newAccount();
    const txid = newTxid();
    expect((await h.pix('PUT', `/cob/${txid}`, cobBody({ chave: a.key }), a.token)).status).toBe(201);
    expect((await h.pix('GET', `/cob/${txid}`, undefined, a.token)).json).toMatchObject({ txid, chave: a.key });

    for (const token of [b.token, h.token]) {
      const got = await h.pix('GET', `/cob/${txid}`, undefined, token);
      expect([got.status, problemType(got)]).toEqual([404, 'CobNaoEncontrado']);
      const patched = await h.pix('PATCH', `/cob/${txid}`, { solicitacaoPagador: 'outra' }, token);
      expect([patched.status, problemType(patched)]).toEqual([404, 'CobNaoEncontrado']);
      const list = await h.pix('GET', `/cob?inicio=${instant(-60_000)}&fim=${instant(60_000)}`, undefined, token);
      expect(list.json.cobs.map((c: { txid: string }) => c.txid)).not.toContain(txid);
    }
    const listA = await h.pix('GET', `/cob?inicio=${instant(-60_000)}&fim=${instant(60_000)}`, undefined, a.token);
    expect(listA.json.cobs.map((c: { txid: string }) => c.txid)).toEqual([txid]);

    // A key of another account, or of the default account: the BCB document's CobOperacaoInvalida on cob.chave.
    for (const chave of [b.key, RECEIVING_KEY]) {
      const refused = await h.pix('PUT', `/cob/${newTxid()}`, cobBody({ chave }), a.token);
      expect([refused.status, problemType(refused)]).toEqual([400, 'CobOperacaoInvalida']);
      expect(refused.json.violacoes).toEqual([expect.objectContaining({ propriedade: 'cob.chave', valor: chave })]);
    }
    const defaultRefused = await h.pix('PUT', `/cob/${newTxid()}`, cobBody({ chave: a.key }));
    expect([defaultRefused.status, problemType(defaultRefused)]).toEqual([400, 'CobOperacaoInvalida']);
    // The same txid under another account is taken, not a second cob.
    const sameTxid = await h.pix('PUT', `/cob/${txid}`, cobBody({ chave: b.key }), b.token);
    expect([sameTxid.status, problemType(sameTxid)]).toEqual([400, 'CobOperacaoInvalida']);
  });

  it('Pix received: a payment credits the cob account only, and only it lists, reads and returns the Pix', async () => {
    const a = await newAccount();
    const b = await newAccount({ openingBalanceCents: 1_000 });
    const defaultBefore = await saldo(h.token);
    const { txid, e2e } = await paidCob(a, '25.00');
    expect(await saldo(a.token)).toBe('25.00');
    expect(await saldo(b.token)).toBe('10.00');
    expect(await saldo(h.token)).toBe(defaultBefore);
    expect((await h.call('GET', `/sandbox/accounts/${a.id}`)).json.balanceCents).toBe(2_500);

    expect((await h.pix('GET', `/pix/${e2e}`, undefined, a.token)).json).toMatchObject({ endToEndId: e2e, txid });
    for (const token of [b.token, h.token]) {
      const got = await h.pix('GET', `/pix/${e2e}`, undefined, token);
      expect([got.status, problemType(got)]).toEqual([404, 'PixNaoEncontrado']);
      const list = await h.pix('GET', `/pix?inicio=${instant(-60_000)}&fim=${instant(60_000)}`, undefined, token);
      expect(list.json.pix.map((p: { endToEndId: string }) => p.endToEndId)).not.toContain(e2e);
      const devolucao = await h.pix('PUT', `/pix/${e2e}/devolucao/d1`, { valor: '1.00' }, token);
      expect([devolucao.status, problemType(devolucao)]).toEqual([404, 'PixNaoEncontrado']);
    }
    const listA = await h.pix('GET', `/pix?inicio=${instant(-60_000)}&fim=${instant(60_000)}`, undefined, a.token);
    expect(listA.json.pix.map((p: { endToEndId: string }) => p.endToEndId)).toEqual([e2e]);

    // A devolução comes out of the cob's account.
    expect((await h.pix('PUT', `/pix/${e2e}/devolucao/d1`, { valor: '5.00' }, a.token)).status).toBe(201);
    expect(await saldo(a.token)).toBe('20.00');
    expect(await saldo(h.token)).toBe(defaultBefore);
  });

  it('webhooks: registered on its own keys only, read and listed by its account only, notified for its cobs', async () => {
    const a = await newAccount({ cnpj: '11444777000161' });
    const b = await newAccount();
    const put = await h.pix('PUT', `/webhook/${a.key}`, { webhookUrl: `${receiver.url}/a` }, a.token);
    expect(put.status).toBe(200);
    const foreign = await h.pix('PUT', `/webhook/${a.key}`, { webhookUrl: `${receiver.url}/b` }, b.token);
    expect([foreign.status, problemType(foreign)]).toEqual([400, 'WebhookOperacaoInvalida']);
    const got = await h.pix('GET', `/webhook/${a.key}`, undefined, a.token);
    expect(got.json).toMatchObject({ chave: a.key, webhookUrl: `${receiver.url}/a`, cnpj: '11444777000161' });
    for (const token of [b.token, h.token]) {
      const other = await h.pix('GET', `/webhook/${a.key}`, undefined, token);
      expect([other.status, problemType(other)]).toEqual([404, 'WebhookNaoEncontrado']);
      const removed = await h.pix('DELETE', `/webhook/${a.key}`, undefined, token);
      expect(removed.status).toBe(404);
      const list = await h.pix('GET', '/webhook', undefined, token);
      expect(list.json.webhooks.map((w: { chave: string }) => w.chave)).not.toContain(a.key);
    }
    expect((await h.pix('GET', '/webhook', undefined, a.token)).json.webhooks).toEqual([
      expect.objectContaining({ chave: a.key }),
    ]);

    const { e2e } = await paidCob(a, '3.00');
    const deadline = Date.now() + 3_000;
    while (!receiver.received.some((r) => r.path === '/a/pix') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    const notified = receiver.received.filter((r) => r.path === '/a/pix').map((r) => JSON.parse(r.rawBody));
    expect(notified).toEqual([{ pix: [expect.objectContaining({ endToEndId: e2e, chave: a.key })] }]);
    expect(receiver.received.filter((r) => r.path.startsWith('/b'))).toEqual([]);
  });

  it('sends and balance: a send debits its sender, is refused beyond the balance, and is read by its account only', async () => {
    const a = await newAccount({ openingBalanceCents: 10_000 });
    const b = await newAccount();
    const idEnvio = newIdEnvio();
    const body = { ...sendBody({ valor: '30.00' }), pagador: { chave: a.key } };
    expect((await h.efi('PUT', `/v3/gn/pix/${idEnvio}`, body, a.token)).status).toBe(201);
    expect(await saldo(a.token)).toBe('70.00');
    expect((await settled(idEnvio, a.token, 'REALIZADO')).valor).toBe('30.00');

    // Beyond the balance: accepted, then NAO_REALIZADO with AM04, as Efí reports it; nothing moves.
    const tooMuch = newIdEnvio();
    const refusedBody = { ...sendBody({ valor: '70.01' }), pagador: { chave: a.key } };
    expect((await h.efi('PUT', `/v3/gn/pix/${tooMuch}`, refusedBody, a.token)).status).toBe(201);
    const refused = await settled(tooMuch, a.token, 'NAO_REALIZADO');
    const records = (await h.call('GET', '/sandbox/efi/enviados')).json.enviados;
    const record = records.find((e: { idEnvio: string }) => e.idEnvio === tooMuch);
    expect(record.sandbox.erro).toMatchObject({ codigo: 'AM04' });
    expect(await saldo(a.token)).toBe('70.00');

    // pagador.chave of another account: Efí's chave_invalida.
    const foreignKey = { ...sendBody({ valor: '1.00' }), pagador: { chave: a.key } };
    const foreign = await h.efi('PUT', `/v3/gn/pix/${newIdEnvio()}`, foreignKey, b.token);
    expect([foreign.status, foreign.json.nome]).toEqual([400, 'chave_invalida']);
    const fromDefault = await h.efi('PUT', `/v3/gn/pix/${newIdEnvio()}`, foreignKey);
    expect([fromDefault.status, fromDefault.json.nome]).toEqual([400, 'chave_invalida']);

    for (const token of [b.token, h.token]) {
      const byId = await h.efi('GET', `/v2/gn/pix/enviados/id-envio/${idEnvio}`, undefined, token);
      expect(byId.status).toBe(404);
      const byE2e = await h.efi('GET', `/v2/gn/pix/enviados/${refused.endToEndId}`, undefined, token);
      expect(byE2e.status).toBe(404);
      const list = await h.efi(
        'GET',
        `/v2/gn/pix/enviados?inicio=${instant(-60_000)}&fim=${instant(60_000)}`,
        undefined,
        token,
      );
      expect(list.json.pix.map((p: { idEnvio: string }) => p.idEnvio)).not.toContain(idEnvio);
    }
    const listA = await h.efi(
      'GET',
      `/v2/gn/pix/enviados?inicio=${instant(-60_000)}&fim=${instant(60_000)}`,
      undefined,
      a.token,
    );
    expect(listA.json.pix.map((p: { idEnvio: string }) => p.idEnvio).sort()).toEqual([idEnvio, tooMuch].sort());
    expect(await saldo(b.token)).toBe('0.00');
  });

  it('a send to another account of the PSP credits it once settled; a devolução beyond the balance is refused', async () => {
    const a = await newAccount();
    const b = await newAccount();
    const { e2e } = await paidCob(a, '40.00');
    const idEnvio = newIdEnvio();
    const body = { valor: '30.00', pagador: { chave: a.key }, favorecido: { chave: b.key } };
    expect((await h.efi('PUT', `/v3/gn/pix/${idEnvio}`, body, a.token)).status).toBe(201);
    await settled(idEnvio, a.token, 'REALIZADO');
    expect(await saldo(a.token)).toBe('10.00');
    expect(await saldo(b.token)).toBe('30.00');

    // 10.00 left: returning 15.00 of the 40.00 received would take the account below zero.
    const devolucao = await h.pix('PUT', `/pix/${e2e}/devolucao/d1`, { valor: '15.00' }, a.token);
    expect([devolucao.status, problemType(devolucao)]).toEqual([400, 'PixDevolucaoInvalida']);
    expect(await saldo(a.token)).toBe('10.00');
  });

  it('infractions (MED): listed and answered by the account that received the Pix only', async () => {
    const a = await newAccount();
    const { txid } = await paidCob(a, '9.00');
    const opened = await h.call('POST', `/sandbox/charges/${txid}/infractions`, {});
    expect(opened.status).toBe(201);
    const range = `inicio=${instant(-60_000)}&fim=${instant(60_000)}`;
    const mine = await h.efi('GET', `/v2/gn/infracoes?${range}`, undefined, a.token);
    expect(mine.json.infracoes).toEqual([
      expect.objectContaining({
        idInfracao: opened.json.id,
        chave: a.key,
        destino: expect.objectContaining({ documento: expect.any(String) }),
      }),
    ]);
    const theirs = await h.efi('GET', `/v2/gn/infracoes?${range}`, undefined, h.token);
    expect(theirs.json.infracoes.map((i: { idInfracao: string }) => i.idInfracao)).not.toContain(opened.json.id);
    const defence = { analise: 'rejeitado', justificativa: 'Pagamento legítimo.' };
    const foreign = await h.efi('POST', `/v2/gn/infracoes/${opened.json.id}/defesa`, defence, h.token);
    expect(foreign.status).toBe(404);
    expect((await h.efi('POST', `/v2/gn/infracoes/${opened.json.id}/defesa`, defence, a.token)).status).toBe(201);
  });
});

describe('restart', () => {
  it('keeps the accounts made, their credentials (as a hash) and their cobs', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sbx-accounts-'));
    const dataFile = path.join(dir, 'state.jsonl');
    const first = await startSandbox({ dataFile });
    const made = await first.call('POST', '/sandbox/accounts', { openingBalanceCents: 500 });
    const token = await tokenFor(first.url, made.json.clientId, made.json.clientSecret);
    const txid = newTxid();
    const put = await fetch(`${first.url}/api/v2/cob/${txid}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(cobBody({ chave: made.json.key })),
    });
    expect(put.status).toBe(201);
    await first.close();
    expect(fs.readFileSync(dataFile, 'utf8')).not.toContain(made.json.clientSecret);

    const second = await startSandbox({ dataFile });
    try {
      const read = await second.call('GET', `/sandbox/accounts/${made.json.id}`);
      expect(read.json).toMatchObject({ id: made.json.id, keys: made.json.keys, balanceCents: 500 });
      const again = await tokenFor(second.url, made.json.clientId, made.json.clientSecret);
      const got = await fetch(`${second.url}/api/v2/cob/${txid}`, { headers: { authorization: `Bearer ${again}` } });
      expect(got.status).toBe(200);
    } finally {
      await second.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * Efí's send, sent-Pix, balance routes at the sandbox over real HTTP (docs/standards/efi-pix.yaml):
 * the token of /oauth/token on /v3/gn and /v2/gn, PUT /v3/gn/pix/{idEnvio} with its refusals and
 * the idEnvio reuse 409, the outcome decided at acceptance (REALIZADO, AC03, DS04, AM04) and shown
 * after the settle time, the webhook of the paying key (a local receiver), paused webhooks, a
 * recipient's devolução, the balance's arithmetic, the list with paging, faults (a lost answer is
 * found by idEnvio), a restart, and the request validator of the document.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startReceiver, type Receiver } from '../support/receiver';
import { EfiRequestValidator } from '../support/efiRequestValidator';
import { PixApiAudit } from '../support/pixApiAudit';
import { chargeRequest, waitFor } from './harness';
import { newIdEnvio, RECEIVING_KEY, sendBody, startEfiSandbox, type EfiHarness } from './efiHarness';
import { freshInstant, instant, requestToken } from './pixApiHarness';

let h: EfiHarness | undefined;
let receiver: Receiver;

beforeEach(async () => {
  receiver = await startReceiver();
});

afterEach(async () => {
  await h?.close();
  h = undefined;
  await receiver.close();
});

async function withWebhook(opts: Parameters<typeof startEfiSandbox>[0] = {}): Promise<EfiHarness> {
  const harness = await startEfiSandbox(opts);
  const put = await harness.pix('PUT', `/webhook/${RECEIVING_KEY}`, { webhookUrl: `${receiver.url}/efi` });
  expect(put.status).toBe(200);
  return harness;
}

function notifications(): any[] {
  return receiver.received.map((r) => ({ path: r.path, body: JSON.parse(r.rawBody) }));
}

/** The send as GET id-envio reads it, once it reads `status`. */
async function settled(harness: EfiHarness, idEnvio: string, status = 'REALIZADO') {
  const deadline = Date.now() + 3_000;
  for (;;) {
    const got = await harness.efi('GET', `/v2/gn/pix/enviados/id-envio/${idEnvio}`);
    if (got.json?.status === status) return got.json;
    if (Date.now() > deadline) throw new Error(`send ${idEnvio} never read ${status}: ${got.text}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('authentication', () => {
  it('takes the token /oauth/token issues, answers 401 in Efí form without one, and grants Efí scopes when asked', async () => {
    h = await startEfiSandbox();
    const none = await h.efi('GET', '/v2/gn/saldo', undefined, null);
    expect(none.status).toBe(401);
    expect(none.json).toEqual({ nome: 'nao_autorizado', mensagem: expect.any(String) });
    expect((await h.efi('PUT', `/v3/gn/pix/${newIdEnvio()}`, sendBody(), 'not-a-token')).status).toBe(401);
    expect((await h.efi('GET', '/v2/gn/saldo')).status).toBe(200);
    const scoped = await requestToken(h.url, {
      body: 'grant_type=client_credentials&scope=pix.send%20gn.pix.send.read%20gn.balance.read',
    });
    expect(scoped.status).toBe(200);
    expect(scoped.json.scope).toBe('pix.send gn.pix.send.read gn.balance.read');
    expect((await h.efi('GET', '/v2/gn/saldo', undefined, scoped.json.access_token)).status).toBe(200);
    // An Efí path the sandbox does not serve: 404 in Efí form, not API Pix's problem.
    expect((await h.efi('GET', '/v2/gn/evp')).json).toEqual({ nome: 'nao_encontrado', mensagem: expect.any(String) });
  });
});

describe('PUT /v3/gn/pix/{idEnvio}', () => {
  it('accepts a send (201 EM_PROCESSAMENTO), settles it REALIZADO and POSTs the webhook of the paying key', async () => {
    h = await withWebhook();
    const idEnvio = newIdEnvio();
    const put = await h.efi(
      'PUT',
      `/v3/gn/pix/${idEnvio}`,
      sendBody({ chave: '52998224725', infoPagador: 'Saque 42' }),
    );
    expect(put.status).toBe(201);
    expect(put.json).toEqual({
      idEnvio,
      e2eId: expect.stringMatching(/^E99999999\d{12}[a-zA-Z0-9]{11}$/),
      valor: '12.34',
      horario: { solicitacao: expect.any(String) },
      status: 'EM_PROCESSAMENTO',
    });
    const e2eId = put.json.e2eId as string;
    const done = await settled(h, idEnvio);
    expect(done).toEqual({
      endToEndId: e2eId,
      idEnvio,
      valor: '12.34',
      chave: RECEIVING_KEY,
      status: 'REALIZADO',
      infoPagador: 'Saque 42',
      horario: { solicitacao: put.json.horario.solicitacao, liquidacao: expect.any(String) },
      favorecido: { chave: '52998224725', identificacao: { nome: 'Titular 4725', cpf: '***.982.247-**' } },
    });
    expect((await h.efi('GET', `/v2/gn/pix/enviados/${e2eId}`)).json).toEqual(done);
    await waitFor(() => receiver.received.length === 1);
    expect(notifications()).toEqual([
      {
        path: '/efi/pix',
        body: {
          pix: [
            {
              endToEndId: e2eId,
              chave: RECEIVING_KEY,
              tipo: 'SOLICITACAO',
              status: 'REALIZADO',
              valor: '12.34',
              horario: done.horario.liquidacao,
              infoPagador: 'Saque 42',
              gnExtras: { idEnvio },
            },
          ],
        },
      },
    ]);
    // The one transfer store: the send is a transfer with reference = idEnvio.
    const transfers = await h.call('GET', '/sandbox/transfers');
    expect(transfers.json.transfers.filter((t: any) => t.reference === idEnvio)).toEqual([
      expect.objectContaining({ status: 'COMPLETED', amountCents: 1234, pixKey: '52998224725', endToEndId: e2eId }),
    ]);
    expect(transfers.json.references[idEnvio]).toEqual({ requests: 1, created: 1 });
  });

  it('reads EM_PROCESSAMENTO until the settle time', async () => {
    h = await startEfiSandbox({ efiSendSettleMs: 60_000 });
    const idEnvio = newIdEnvio();
    expect((await h.efi('PUT', `/v3/gn/pix/${idEnvio}`, sendBody())).status).toBe(201);
    const got = await h.efi('GET', `/v2/gn/pix/enviados/id-envio/${idEnvio}`);
    expect(got.json.status).toBe('EM_PROCESSAMENTO');
    expect(got.json.horario.liquidacao).toBeUndefined();
  });

  it('answers 409 id_envio_duplicado for a used idEnvio, whatever the body, and counts one creation', async () => {
    h = await startEfiSandbox();
    const idEnvio = newIdEnvio();
    expect((await h.efi('PUT', `/v3/gn/pix/${idEnvio}`, sendBody())).status).toBe(201);
    for (const body of [sendBody(), sendBody({ valor: '99.00' }), { nonsense: true }]) {
      const again = await h.efi('PUT', `/v3/gn/pix/${idEnvio}`, body);
      expect(again.status).toBe(409);
      expect(again.json).toEqual({
        nome: 'id_envio_duplicado',
        mensagem: 'O id de envio informado já foi utilizado em outro pagamento.',
      });
    }
    expect((await h.call('GET', '/sandbox/transfers')).json.references[idEnvio]).toEqual({ requests: 4, created: 1 });
  });

  it('refuses bad requests (400) without recording anything, so the idEnvio can be used after', async () => {
    h = await startEfiSandbox();
    await h.call('POST', '/sandbox/dict/keys', {
      key: 'owned@example.com',
      keyType: 'EMAIL',
      ownerName: 'Dona da Chave',
      ownerDocument: '52998224725',
    });
    const idEnvio = newIdEnvio();
    const cases: [unknown, string][] = [
      [sendBody({ valor: '12.3' }), 'valor_invalido'],
      [sendBody({ valor: '0.00' }), 'valor_invalido'],
      [{ ...sendBody(), extra: 1 }, 'valor_invalido'],
      [{ valor: '1.00', pagador: { chave: RECEIVING_KEY } }, 'valor_invalido'],
      [{ ...sendBody(), pagador: { chave: RECEIVING_KEY, infoPagador: 'x'.repeat(141) } }, 'valor_invalido'],
      [
        { ...sendBody(), favorecido: { chave: 'maria@example.com', cpf: '52998224725', cnpj: '11222333000181' } },
        'valor_invalido',
      ],
      [{ ...sendBody(), favorecido: { contaBanco: { nome: 'X' } } }, 'valor_invalido'],
      [{ ...sendBody(), pagador: { chave: 'not-our-key@example.com' } }, 'chave_invalida'],
      [sendBody({ chave: 'not a key' }), 'chave_invalida'],
      [sendBody({ chave: 'owned@example.com', cpf: '11144477735' }), 'chave_nao_pertence_ao_documento'],
    ];
    for (const [body, nome] of cases) {
      const refused = await h.efi('PUT', `/v3/gn/pix/${idEnvio}`, body);
      expect({ status: refused.status, nome: refused.json?.nome }).toEqual({ status: 400, nome });
      expect(typeof refused.json.mensagem).toBe('string');
    }
    const badId = await h.efi('PUT', '/v3/gn/pix/has-a-dash', sendBody());
    expect({ status: badId.status, nome: badId.json.nome }).toEqual({ status: 400, nome: 'valor_invalido' });
    expect((await h.efi('PUT', `/v3/gn/pix/${'a'.repeat(36)}`, sendBody())).status).toBe(400);
    expect((await h.call('GET', '/sandbox/efi/enviados')).json.enviados).toEqual([]);
    // The owner's own document passes, and the idEnvio was never taken.
    const ok = await h.efi(
      'PUT',
      `/v3/gn/pix/${idEnvio}`,
      sendBody({ chave: 'owned@example.com', cpf: '52998224725' }),
    );
    expect(ok.status).toBe(201);
    expect((await h.call('GET', '/sandbox/transfers')).json.references[idEnvio]).toEqual({
      requests: cases.length + 1,
      created: 1,
    });
  });

  it('settles keys containing "invalid" and "refuse" as NAO_REALIZADO with AC03 and DS04 in the webhook', async () => {
    h = await withWebhook();
    const invalid = newIdEnvio();
    const refused = newIdEnvio();
    await h.efi('PUT', `/v3/gn/pix/${invalid}`, sendBody({ chave: 'INVALID@example.com' }));
    await h.efi('PUT', `/v3/gn/pix/${refused}`, sendBody({ chave: 'refuse@example.com', valor: '3.00' }));
    const a = await settled(h, invalid, 'NAO_REALIZADO');
    const b = await settled(h, refused, 'NAO_REALIZADO');
    // Efí's reads document no reason: the reason is the webhook's (gnExtras.erro).
    expect(a.horario.liquidacao).toBeUndefined();
    expect(a.favorecido).toEqual({ chave: 'INVALID@example.com' });
    expect(b.favorecido.identificacao).toEqual({ nome: 'Favorecido Sandbox', cpf: '***.982.247-**' });
    expect('erro' in a || 'gnExtras' in a).toBe(false);
    await waitFor(() => receiver.received.length === 2);
    const byId = Object.fromEntries(notifications().map((n) => [n.body.pix[0].gnExtras.idEnvio, n.body.pix[0]]));
    expect(byId[invalid]).toEqual({
      endToEndId: a.endToEndId,
      chave: RECEIVING_KEY,
      tipo: 'SOLICITACAO',
      status: 'NAO_REALIZADO',
      valor: '12.34',
      horario: null,
      gnExtras: {
        idEnvio: invalid,
        erro: { codigo: 'AC03', origem: 'PSP do usuário recebedor', motivo: expect.any(String) },
      },
    });
    expect(byId[refused].gnExtras.erro).toEqual({
      codigo: 'DS04',
      origem: 'PSP do usuário recebedor',
      motivo: expect.any(String),
    });
    const transfers = (await h.call('GET', '/sandbox/transfers')).json.transfers;
    expect(transfers.map((t: any) => [t.reference, t.status, t.failureCode]).sort()).toEqual(
      [
        [invalid, 'FAILED', 'AC03'],
        [refused, 'FAILED', 'DS04'],
      ].sort(),
    );
  });

  it('sends nothing while the webhooks are paused, nor with no webhook registered; the outcome still reads', async () => {
    h = await withWebhook();
    expect((await h.call('POST', '/sandbox/efi/webhooks', { paused: true })).json).toEqual({ paused: true });
    const lost = newIdEnvio();
    await h.efi('PUT', `/v3/gn/pix/${lost}`, sendBody());
    await settled(h, lost);
    await new Promise((r) => setTimeout(r, 150));
    expect(receiver.received).toEqual([]);
    await h.call('POST', '/sandbox/efi/webhooks', { paused: false });
    const heard = newIdEnvio();
    await h.efi('PUT', `/v3/gn/pix/${heard}`, sendBody());
    await waitFor(() => receiver.received.length === 1);
    expect(notifications()[0].body.pix[0].gnExtras.idEnvio).toBe(heard);
    // No webhook on the key: nothing is POSTed, and no error.
    expect((await h.pix('DELETE', `/webhook/${RECEIVING_KEY}`)).status).toBe(204);
    const unheard = newIdEnvio();
    expect((await h.efi('PUT', `/v3/gn/pix/${unheard}`, sendBody())).status).toBe(201);
    await settled(h, unheard);
    await new Promise((r) => setTimeout(r, 150));
    expect(receiver.received).toHaveLength(1);
  });

  it('a recipient returns part of a REALIZADO send: devolucoes on the send and the webhook, the balance up', async () => {
    h = await withWebhook();
    const idEnvio = newIdEnvio();
    await h.efi('PUT', `/v3/gn/pix/${idEnvio}`, sendBody({ valor: '10.00' }));
    await settled(h, idEnvio);
    await waitFor(() => receiver.received.length === 1);
    const before = (await h.efi('GET', '/v2/gn/saldo')).json.saldo as string;
    const back = await h.call('POST', `/sandbox/efi/enviados/${idEnvio}/devolucao`, { amountCents: 400 });
    expect(back.status).toBe(201);
    const after = (await h.efi('GET', '/v2/gn/saldo')).json.saldo as string;
    expect(Math.round(Number(after) * 100) - Math.round(Number(before) * 100)).toBe(400);
    await waitFor(() => receiver.received.length === 2);
    const entry = notifications()[1].body.pix[0];
    expect(entry).toMatchObject({ status: 'REALIZADO', gnExtras: { idEnvio } });
    expect(entry.devolucoes).toEqual([
      {
        id: expect.any(String),
        rtrId: expect.stringMatching(/^D99999999\d{12}[a-zA-Z0-9]{11}$/),
        valor: '4.00',
        horario: { solicitacao: expect.any(String), liquidacao: expect.any(String) },
        status: 'DEVOLVIDO',
      },
    ]);
    expect((await h.efi('GET', `/v2/gn/pix/enviados/id-envio/${idEnvio}`)).json.devolucoes).toEqual(entry.devolucoes);
    expect((await h.call('POST', `/sandbox/efi/enviados/${idEnvio}/devolucao`, { amountCents: 601 })).status).toBe(409);
    expect((await h.call('POST', `/sandbox/efi/enviados/${idEnvio}/devolucao`, { amountCents: 600 })).status).toBe(201);
    expect((await h.call('POST', '/sandbox/efi/enviados/nosuchsend/devolucao', { amountCents: 1 })).status).toBe(404);
    const failed = newIdEnvio();
    await h.efi('PUT', `/v3/gn/pix/${failed}`, sendBody({ chave: 'invalid@example.com' }));
    await settled(h, failed, 'NAO_REALIZADO');
    expect((await h.call('POST', `/sandbox/efi/enviados/${failed}/devolucao`, { amountCents: 1 })).status).toBe(409);
  });
});

describe('GET /v2/gn/saldo', () => {
  it('sums the opening balance, Pix received, sends and returns; a send above it settles NAO_REALIZADO AM04', async () => {
    h = await withWebhook({ efiOpeningBalanceCents: 5_000 });
    expect((await h.efi('GET', '/v2/gn/saldo')).json).toEqual({ saldo: '50.00' });
    expect((await h.efi('GET', '/v2/gn/saldo?bloqueios=true')).json).toEqual({
      saldo: '50.00',
      bloqueios: { judicial: '0.00', med: '0.00', total: '0.00' },
    });
    // A Pix received on the account.
    const charge = await h.provider.issueCharge(chargeRequest({ amountCents: 2_500 }));
    expect((await h.call('POST', `/sandbox/charges/${charge.id}/pay`, {})).status).toBe(200);
    expect((await h.efi('GET', '/v2/gn/saldo')).json.saldo).toBe('75.00');
    // A send decided REALIZADO is debited when accepted.
    const paid = newIdEnvio();
    await h.efi('PUT', `/v3/gn/pix/${paid}`, sendBody({ valor: '70.00' }));
    expect((await h.efi('GET', '/v2/gn/saldo')).json.saldo).toBe('5.00');
    const short = newIdEnvio();
    expect((await h.efi('PUT', `/v3/gn/pix/${short}`, sendBody({ valor: '5.01' }))).status).toBe(201);
    await settled(h, short, 'NAO_REALIZADO');
    expect((await h.efi('GET', '/v2/gn/saldo')).json.saldo).toBe('5.00');
    await waitFor(() => receiver.received.length === 2);
    const am04 = notifications().find((n) => n.body.pix[0].gnExtras.idEnvio === short);
    expect(am04.body.pix[0].gnExtras.erro).toMatchObject({ codigo: 'AM04' });
    // The control sets it; later flows move it from there.
    expect((await h.call('POST', '/sandbox/efi/saldo', { cents: 100_000 })).json).toEqual({
      cents: 100_000,
      saldo: '1000.00',
    });
    await h.efi('PUT', `/v3/gn/pix/${newIdEnvio()}`, sendBody({ valor: '0.50' }));
    expect((await h.efi('GET', '/v2/gn/saldo')).json.saldo).toBe('999.50');
    expect((await h.efi('GET', '/v2/gn/saldo?bloqueios=sim')).status).toBe(400);
  });
});

describe('GET /v2/gn/pix/enviados', () => {
  it('lists the sends of [inicio, fim], oldest first, with paging, and filters by status', async () => {
    h = await startEfiSandbox({ efiSendSettleMs: 0 });
    const inicio = await freshInstant();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const idEnvio = `lista${i}${newIdEnvio().slice(0, 10)}`;
      ids.push(idEnvio);
      await h.efi(
        'PUT',
        `/v3/gn/pix/${idEnvio}`,
        sendBody({ chave: i === 4 ? 'invalid@example.com' : 'maria@example.com' }),
      );
      await new Promise((r) => setTimeout(r, 3));
    }
    const fim = instant(1_000);
    const first = await h.efi('GET', `/v2/gn/pix/enviados?inicio=${inicio}&fim=${fim}&paginacao.itensPorPagina=2`);
    expect(first.status).toBe(200);
    expect(first.json.parametros).toEqual({
      inicio,
      fim,
      paginacao: { paginaAtual: 0, itensPorPagina: 2, quantidadeDePaginas: 3, quantidadeTotalDeItens: 5 },
    });
    expect(first.json.pix.map((p: any) => p.idEnvio)).toEqual(ids.slice(0, 2));
    const last = await h.efi(
      'GET',
      `/v2/gn/pix/enviados?inicio=${inicio}&fim=${fim}&paginacao.itensPorPagina=2&paginacao.paginaAtual=2`,
    );
    expect(last.json.pix.map((p: any) => p.idEnvio)).toEqual([ids[4]]);
    expect(last.json.pix[0]).toMatchObject({ status: 'NAO_REALIZADO', chave: RECEIVING_KEY, valor: '12.34' });
    const failedOnly = await h.efi('GET', `/v2/gn/pix/enviados?inicio=${inicio}&fim=${fim}&status=NAO_REALIZADO`);
    expect(failedOnly.json.pix.map((p: any) => p.idEnvio)).toEqual([ids[4]]);
    const none = await h.efi('GET', `/v2/gn/pix/enviados?inicio=${instant(-60_000)}&fim=${instant(-30_000)}`);
    expect(none.json.pix).toEqual([]);
    const bad = await h.efi('GET', `/v2/gn/pix/enviados?inicio=yesterday&fim=${fim}`);
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({
      type: 'https://pix.bcb.gov.br/api/v2/error/PixConsultaInvalida',
      status: 400,
      violacoes: [expect.objectContaining({ propriedade: 'inicio' })],
    });
    expect((await h.efi('GET', `/v2/gn/pix/enviados?fim=${fim}`)).status).toBe(400);
  });

  it('answers 404 PixEnviadoNaoEncontrado (a problem, as Efí documents it) for an unknown idEnvio or e2eId', async () => {
    h = await startEfiSandbox();
    for (const [p, by] of [
      ['/v2/gn/pix/enviados/id-envio/nosuchsend', 'idEnvio'],
      ['/v2/gn/pix/enviados/E99999999202601011200abcdefghijk', 'e2eId'],
    ]) {
      const got = await h.efi('GET', p);
      expect(got.status).toBe(404);
      expect(got.json).toEqual({
        type: 'https://pix.bcb.gov.br/api/v2/error/PixEnviadoNaoEncontrado',
        title: 'Não Encontrado',
        status: 404,
        detail: `Pix enviado não encontrado para o ${by} informado.`,
      });
    }
  });
});

describe('faults', () => {
  it('failFirst answers 503 servico_indisponivel unprocessed; timeoutRate processes the send and loses the answer', async () => {
    h = await startEfiSandbox();
    await h.call('POST', '/sandbox/faults', { failFirst: 1 });
    const idEnvio = newIdEnvio();
    const down = await h.efi('PUT', `/v3/gn/pix/${idEnvio}`, sendBody());
    expect(down.status).toBe(503);
    expect(down.json).toEqual({ nome: 'servico_indisponivel', mensagem: expect.any(String) });
    // The same call again goes through; the refused one never reached the store (one request counted).
    expect((await h.efi('PUT', `/v3/gn/pix/${idEnvio}`, sendBody())).status).toBe(201);
    await h.call('DELETE', '/sandbox/faults');
    expect((await h.call('GET', '/sandbox/transfers')).json.references[idEnvio]).toEqual({ requests: 1, created: 1 });

    await h.call('POST', '/sandbox/faults', { timeoutRate: 1 });
    const lost = newIdEnvio();
    await expect(
      fetch(`${h.url}/v3/gn/pix/${lost}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${h.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(sendBody()),
        signal: AbortSignal.timeout(300),
      }),
    ).rejects.toThrow();
    await h.call('DELETE', '/sandbox/faults');
    // Processed, answer lost: the client finds it by its idEnvio, and a retry cannot send it twice.
    expect((await h.efi('GET', `/v2/gn/pix/enviados/id-envio/${lost}`)).json.idEnvio).toBe(lost);
    expect((await h.efi('PUT', `/v3/gn/pix/${lost}`, sendBody())).status).toBe(409);
    expect((await h.call('GET', '/sandbox/transfers')).json.references[lost]).toEqual({ requests: 2, created: 1 });
  });
});

describe('persistence', () => {
  it('keeps the sends, their outcome, their returns and the balance across a restart', async () => {
    const dataFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'efi-sandbox-')), 'state.jsonl');
    const first = await startEfiSandbox({ dataFile, efiSendSettleMs: 200 });
    const idEnvio = newIdEnvio();
    const put = await first.efi('PUT', `/v3/gn/pix/${idEnvio}`, sendBody({ valor: '10.00' }));
    expect(put.status).toBe(201);
    await first.call('POST', '/sandbox/efi/saldo', { cents: 50_000 });
    await first.close();
    // No timer survives the restart; the outcome is derived from settlesAt on read.
    await new Promise((r) => setTimeout(r, 250));
    h = await startEfiSandbox({ dataFile });
    const got = await h.efi('GET', `/v2/gn/pix/enviados/id-envio/${idEnvio}`);
    expect(got.json).toMatchObject({ idEnvio, endToEndId: put.json.e2eId, status: 'REALIZADO' });
    expect((await h.efi('PUT', `/v3/gn/pix/${idEnvio}`, sendBody())).status).toBe(409);
    expect((await h.efi('GET', '/v2/gn/saldo')).json.saldo).toBe('500.00');
    expect((await h.call('POST', `/sandbox/efi/enviados/${idEnvio}/devolucao`, { amountCents: 100 })).status).toBe(201);
    await h.close();
    h = await startEfiSandbox({ dataFile });
    expect((await h.efi('GET', `/v2/gn/pix/enviados/${put.json.e2eId}`)).json.devolucoes).toHaveLength(1);
    expect((await h.efi('GET', '/v2/gn/saldo')).json.saldo).toBe('501.00');
    expect((await h.call('GET', '/sandbox/transfers')).json.references[idEnvio]).toEqual({ requests: 2, created: 1 });
  });
});

describe('the request validator of docs/standards/efi-pix.yaml', () => {
  it('accepts well-formed Efí requests and names what is wrong with malformed ones', async () => {
    const validator = await EfiRequestValidator.create();
    const json = { 'content-type': 'application/json' };
    const put = (body: unknown, id = 'abc123') => ({
      method: 'PUT',
      url: `/v3/gn/pix/${id}`,
      headers: json,
      body: JSON.stringify(body),
    });
    expect(validator.violationsOf(put(sendBody({ cpf: '52998224725' })))).toEqual([]);
    expect(validator.violationsOf({ method: 'GET', url: '/v2/gn/saldo', headers: {} })).toEqual([]);
    expect(
      validator.violationsOf({
        method: 'GET',
        url: '/v2/gn/pix/enviados?inicio=2026-01-01T00:00:00Z&fim=2026-01-02T00:00:00Z&paginacao.itensPorPagina=50',
        headers: {},
      }),
    ).toEqual([]);
    expect(
      validator.violationsOf({
        method: 'POST',
        url: '/v2/gn/infracoes/abc/defesa',
        headers: json,
        body: JSON.stringify({ analise: 'aceito', justificativa: 'ok' }),
      }),
    ).toEqual([]);
    expect(validator.violationsOf(put({ ...sendBody(), valor: '12,34' })).join('\n')).toMatch(/\/valor/);
    expect(validator.violationsOf(put({ ...sendBody(), extra: true })).join('\n')).toMatch(/additional/);
    expect(validator.violationsOf(put(sendBody(), 'has-dash')).join('\n')).toMatch(/idEnvio/);
    expect(
      validator.violationsOf(put({ ...sendBody(), favorecido: { chave: 'maria@example.com', cpf: '1', cnpj: '2' } })),
    ).not.toEqual([]);
    expect(validator.violationsOf({ method: 'GET', url: '/v2/gn/pix/enviados?fim=x', headers: {} })).not.toEqual([]);
    expect(validator.violationsOf({ method: 'DELETE', url: '/v2/gn/saldo', headers: {} })).toEqual([
      "DELETE /v2/gn/saldo: no operation of Efí's document has this method and path",
    ]);
    expect(validator.concerns({ method: 'GET', url: '/api/v2/cob/x', headers: {} })).toBe(false);
  });

  // Only well-formed requests here: a violation the audit sees is written to the run's log, which fails the run.
  it('audits every Efí request the sandbox observes, counted apart from API Pix', async () => {
    const audit = await PixApiAudit.create();
    h = await startEfiSandbox({ observeApiRequest: audit.observe });
    await h.efi('PUT', `/v3/gn/pix/${newIdEnvio()}`, sendBody({ infoPagador: 'Saque' }));
    await h.efi('GET', '/v2/gn/saldo');
    await h.efi('GET', `/v2/gn/infracoes?inicio=${instant(-1000)}&fim=${instant(1000)}`);
    await h.pix('GET', `/cob?inicio=${instant(-1000)}&fim=${instant(1000)}`);
    const report = audit.report();
    expect(report.checked).toBe(1);
    expect(report.calls).toEqual(['GET /api/v2/cob']);
    expect(report.violations).toEqual([]);
    expect(report.efi.checked).toBe(3);
    expect(report.efi.calls).toEqual([
      expect.stringMatching(/^PUT \/v3\/gn\/pix\/[a-zA-Z0-9]+$/),
      'GET /v2/gn/saldo',
      'GET /v2/gn/infracoes',
    ]);
    expect(report.efi.violations).toEqual([]);
    expect(() => audit.assertClean()).not.toThrow();
  });
});

/**
 * API Pix webhooks and the Pix received: registering a webhook, the notification POSTed to
 * webhookUrl + "/pix" when a cob is paid (a local receiver), a lost one (`callback: false`), and
 * GET /pix with its filters and paginacao. Bodies are checked against the BCB document's schemas.
 */
import { isValidEndToEndId } from '../../core/pix/brcode';
import { pixApiSchemaValidator, type SchemaValidator } from '../support/pixApiSpec';
import { startReceiver, type Receiver } from '../support/receiver';
import { chargeRequest, waitFor } from './harness';
import {
  cobBody,
  freshInstant,
  instant,
  newTxid,
  RECEIVING_KEY,
  startPixApiSandbox,
  type PixApiHarness,
} from './pixApiHarness';

const ERROR = 'https://pix.bcb.gov.br/api/v2/error/';

let h: PixApiHarness;
let receiver: Receiver;
let conforms: SchemaValidator;
beforeAll(async () => {
  [h, receiver, conforms] = await Promise.all([
    startPixApiSandbox(),
    startReceiver(),
    pixApiSchemaValidator(['Pix', 'PixConsultados', 'WebhookCompleto', 'WebhooksConsultados', 'Problema']),
  ]);
});
afterAll(async () => {
  await h.close();
  await receiver.close();
});

async function paidCob(
  payBody: Record<string, unknown> = {},
  body = cobBody(),
): Promise<{ txid: string; e2e: string; chargeId: string }> {
  const txid = newTxid();
  expect((await h.pix('PUT', `/cob/${txid}`, body)).status).toBe(201);
  const paid = await h.call('POST', `/sandbox/charges/${txid}/pay`, payBody);
  expect(paid.status).toBe(200);
  return { txid, e2e: paid.json.endToEndId, chargeId: paid.json.id };
}

describe('webhooks (PUT, GET, DELETE /webhook/{chave}, GET /webhook)', () => {
  it('registers one per key of the receiving user, reads, lists and removes it', async () => {
    const put = await h.pix('PUT', `/webhook/${RECEIVING_KEY}`, { webhookUrl: `${receiver.url}/hooks/secret-segment` });
    expect([put.status, put.text]).toEqual([200, '']);
    const got = await h.pix('GET', `/webhook/${RECEIVING_KEY}`);
    expect(got.json).toMatchObject({
      webhookUrl: `${receiver.url}/hooks/secret-segment`,
      chave: RECEIVING_KEY,
      cnpj: '11222333000181',
      criacao: expect.any(String),
    });
    expect(conforms('WebhookCompleto', got.json)).toEqual([]);
    // Registering the same URL again (every start-up) is harmless and keeps the registration.
    await h.pix('PUT', `/webhook/${RECEIVING_KEY}`, { webhookUrl: `${receiver.url}/hooks/secret-segment` });
    expect((await h.pix('GET', `/webhook/${RECEIVING_KEY}`)).json.criacao).toBe(got.json.criacao);
    const list = await h.pix('GET', '/webhook');
    expect(list.json.webhooks).toEqual([got.json]);
    expect(conforms('WebhooksConsultados', list.json)).toEqual([]);

    expect((await h.pix('DELETE', `/webhook/${RECEIVING_KEY}`)).status).toBe(204);
    const gone = await h.pix('GET', `/webhook/${RECEIVING_KEY}`);
    expect([gone.status, gone.json.type]).toEqual([404, `${ERROR}WebhookNaoEncontrado`]);
    expect((await h.pix('DELETE', `/webhook/${RECEIVING_KEY}`)).status).toBe(404);
  });

  it('refuses a key that is not the receiving user’s, and a URL that is not one (or would swallow "/pix")', async () => {
    const foreign = await h.pix('PUT', '/webhook/someone@example.com', { webhookUrl: `${receiver.url}/x` });
    expect([foreign.status, foreign.json.type, foreign.json.violacoes[0].propriedade]).toEqual([
      400,
      `${ERROR}WebhookOperacaoInvalida`,
      'chave',
    ]);
    for (const webhookUrl of ['not a url', 'ftp://example.com/x', `${receiver.url}/x?token=1`]) {
      const res = await h.pix('PUT', `/webhook/${RECEIVING_KEY}`, { webhookUrl });
      expect([webhookUrl, res.status, res.json.violacoes[0].propriedade]).toEqual([
        webhookUrl,
        400,
        'webhook.webhookUrl',
      ]);
    }
  });
});

describe('payment notification', () => {
  beforeAll(async () => {
    await h.pix('PUT', `/webhook/${RECEIVING_KEY}`, { webhookUrl: `${receiver.url}/hooks/s3cr3t` });
  });

  it('POSTs {"pix": [Pix]} to webhookUrl + "/pix" when a cob is paid, the payer in the pagador extension', async () => {
    const before = receiver.received.length;
    const { txid, e2e } = await paidCob({
      payer: {
        name: 'Fulana de Tal',
        document: '11144477735',
        documentType: 'CPF',
        ispb: '12345678',
        institution: 'Banco Exemplo',
      },
    });
    const [hit] = await waitFor(() => receiver.received.length > before && receiver.received.slice(before));
    expect(hit.path).toBe('/hooks/s3cr3t/pix');
    expect(hit.headers['content-type']).toContain('application/json');
    const body = JSON.parse(hit.rawBody);
    expect(Object.keys(body)).toEqual(['pix']);
    expect(body.pix).toHaveLength(1);
    expect(conforms('Pix', body.pix[0])).toEqual([]);
    // The validator does refuse what the document does not allow.
    expect(conforms('Pix', { ...body.pix[0], valor: 25, endToEndId: undefined }).length).toBeGreaterThanOrEqual(2);
    expect(body.pix[0]).toEqual({
      endToEndId: e2e,
      txid,
      valor: '25.00',
      componentesValor: { original: { valor: '25.00' } },
      chave: RECEIVING_KEY,
      horario: expect.any(String),
      pagador: {
        nome: 'Fulana de Tal',
        cpf: '11144477735',
        ispbParticipante: '12345678',
        nomeInstituicao: 'Banco Exemplo',
        agencia: '0001',
        conta: '1234567-8',
      },
    });
    expect(e2e.startsWith('E12345678')).toBe(true);
    // The same Pix as GET /pix/{e2eid} answers it.
    const got = await h.pix('GET', `/pix/${e2e}`);
    expect(got.json).toEqual(body.pix[0]);
  });

  it('`callback: false` loses the notification of one payment; resend-callback sends it', async () => {
    const { e2e, chargeId, txid } = await paidCob({ callback: false });
    await new Promise((r) => setTimeout(r, 150));
    expect(receiver.received.some((r) => r.rawBody.includes(e2e))).toBe(false);
    // The attempt log names a cob's notifications by its txid.
    expect(h.sandbox.state.callbacks.some((a) => a.chargeId === txid)).toBe(false);
    // The payment is there for whoever asks (the gateway's sweep for lost callbacks).
    expect((await h.pix('GET', `/pix/${e2e}`)).status).toBe(200);
    expect((await h.call('POST', `/sandbox/charges/${chargeId}/resend-callback`)).status).toBe(202);
    await waitFor(() => receiver.received.some((r) => r.rawBody.includes(e2e)));
  });

  it('retries a failing webhook with the sandbox back-off, the same body each time', async () => {
    receiver.status = 500;
    try {
      const before = receiver.received.length;
      const { txid } = await paidCob();
      const attempts = await waitFor(() => receiver.received.length >= before + 3 && receiver.received.slice(before));
      expect(new Set(attempts.map((a) => a.rawBody)).size).toBe(1);
      // The sandbox records an attempt once it has read the receiver's answer, a moment after the
      // receiver saw the request: wait for the third record, not only the third request.
      const log = await waitFor(() => {
        const recorded = h.sandbox.state.callbacks.filter((a) => a.chargeId === txid);
        return recorded.length >= 3 && recorded;
      });
      expect(log.slice(0, 3).map((a) => [a.attempt, a.httpStatus, a.delivered])).toEqual([
        [1, 500, false],
        [2, 500, false],
        [3, 500, false],
      ]);
    } finally {
      receiver.status = 200;
    }
  });

  it('sends nothing for a cob on a key with no webhook registered', async () => {
    await h.pix('DELETE', `/webhook/${RECEIVING_KEY}`);
    try {
      const { e2e } = await paidCob();
      await new Promise((r) => setTimeout(r, 150));
      expect(receiver.received.some((r) => r.rawBody.includes(e2e))).toBe(false);
    } finally {
      await h.pix('PUT', `/webhook/${RECEIVING_KEY}`, { webhookUrl: `${receiver.url}/hooks/s3cr3t` });
    }
  });

  it('leaves a /v1 charge on its own signed callback, even with a webhook on the sandbox key', async () => {
    const charge = await h.provider.issueCharge(chargeRequest({ callbackUrl: `${receiver.url}/v1-callback` }));
    const paid = await h.call('POST', `/sandbox/charges/${charge.id}/pay`, {});
    await waitFor(() =>
      receiver.received.some((r) => r.path === '/v1-callback' && r.rawBody.includes(paid.json.endToEndId)),
    );
    await new Promise((r) => setTimeout(r, 150));
    expect(receiver.received.filter((r) => r.rawBody.includes(paid.json.endToEndId)).map((r) => r.path)).toEqual([
      '/v1-callback',
    ]);
    // It is still a Pix received: GET /pix/{e2eid} knows it.
    expect((await h.pix('GET', `/pix/${paid.json.endToEndId}`)).json).toMatchObject({
      txid: charge.txid,
      chave: RECEIVING_KEY,
      valor: '25.00',
    });
  });
});

describe('GET /pix and /pix/{e2eid}', () => {
  it('lists the Pix received in [inicio, fim], every page reachable, with txid, cpf and cnpj filters', async () => {
    const inicio = await freshInstant();
    const paid = [];
    for (let i = 0; i < 5; i++) {
      const payer = i === 2 ? { document: '11222333000181', documentType: 'CNPJ', name: 'Empresa Pagadora' } : {};
      paid.push(await paidCob({ payer }));
    }
    const fim = instant(10);
    const range = `inicio=${encodeURIComponent(inicio)}&fim=${encodeURIComponent(fim)}`;
    const seen: string[] = [];
    for (let page = 0; ; page++) {
      const res = await h.pix('GET', `/pix?${range}&paginacao.paginaAtual=${page}&paginacao.itensPorPagina=2`);
      expect(res.status).toBe(200);
      expect(conforms('PixConsultados', res.json)).toEqual([]);
      expect(res.json.parametros.paginacao).toMatchObject({
        paginaAtual: page,
        itensPorPagina: 2,
        quantidadeTotalDeItens: 5,
        quantidadeDePaginas: 3,
      });
      seen.push(...res.json.pix.map((p: { endToEndId: string }) => p.endToEndId));
      if (page + 1 >= res.json.parametros.paginacao.quantidadeDePaginas) break;
    }
    expect(seen).toEqual(paid.map((p) => p.e2e));
    expect(seen.every(isValidEndToEndId)).toBe(true);

    const byTxid = await h.pix('GET', `/pix?${range}&txid=${paid[3].txid}`);
    expect(byTxid.json.pix.map((p: { txid: string }) => p.txid)).toEqual([paid[3].txid]);
    const byCnpj = await h.pix('GET', `/pix?${range}&cnpj=11222333000181`);
    expect(byCnpj.json.pix.map((p: { endToEndId: string }) => p.endToEndId)).toEqual([paid[2].e2e]);
    const byCpf = await h.pix('GET', `/pix?${range}&cpf=52998224725`);
    expect(byCpf.json.pix).toHaveLength(4);
    const past = await h.pix('GET', `/pix?${range}&paginacao.paginaAtual=9`);
    expect([past.status, past.json.pix]).toEqual([200, []]);
  });

  it('lists the statement amount a test control sets (a provider-side disagreement) while GET /pix/{e2eid} keeps the paid one', async () => {
    const inicio = instant(-10);
    const { txid, e2e } = await paidCob();
    await h.call('POST', `/sandbox/charges/${txid}/statement-amount`, { amountCents: 2_400 });
    const list = await h.pix(
      'GET',
      `/pix?inicio=${encodeURIComponent(inicio)}&fim=${encodeURIComponent(instant(10))}&txid=${txid}`,
    );
    expect(list.json.pix[0].valor).toBe('24.00');
    expect((await h.pix('GET', `/pix/${e2e}`)).json.valor).toBe('25.00');
  });

  it('404s an unknown or malformed e2eid and refuses a bad query', async () => {
    for (const e2e of ['E99999999202001011200abcdefghijk', 'nope']) {
      const res = await h.pix('GET', `/pix/${e2e}`);
      expect([res.status, res.json.type]).toEqual([404, `${ERROR}PixNaoEncontrado`]);
      expect(conforms('Problema', res.json)).toEqual([]);
    }
    const bad = await h.pix(
      'GET',
      `/pix?inicio=yesterday&fim=${encodeURIComponent(instant(0))}&cpf=52998224725&cnpj=11222333000181&paginacao.paginaAtual=-1`,
    );
    expect(bad.status).toBe(400);
    expect(bad.json.type).toBe(`${ERROR}PixConsultaInvalida`);
    expect(bad.json.violacoes.map((v: { propriedade: string }) => v.propriedade).sort()).toEqual([
      'cpf',
      'inicio',
      'paginacao.paginaAtual',
    ]);
  });
});

/**
 * API Pix cobs on the sandbox: create, read, revise, remove and list, each answer checked against
 * the BCB document's schema; the re-PUT rule (README "API Pix"); and the cob as the sandbox's one
 * charge model (paid by the control route, seen by /v1, statements and infractions).
 */
import { isValidEndToEndId } from '../../core/pix/brcode';
import { pixApiSchemaValidator, type SchemaValidator } from '../support/pixApiSpec';
import { API_KEY } from './harness';
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
let conforms: SchemaValidator;
beforeAll(async () => {
  [h, conforms] = await Promise.all([
    startPixApiSandbox(),
    pixApiSchemaValidator(['CobGerada', 'CobCompleta', 'CobsConsultadas', 'Problema']),
  ]);
});
afterAll(async () => {
  await h.close();
});

const v1 = (method: string, path: string, body?: unknown) =>
  h.call(method, path, body, { authorization: `Bearer ${API_KEY}` });

describe('PUT /cob/{txid}', () => {
  it('creates an ATIVA cob at revisao 0 with a payload location and its BR Code (201, CobGerada)', async () => {
    const txid = newTxid();
    const res = await h.pix('PUT', `/cob/${txid}`, cobBody({ infoAdicionais: [{ nome: 'Pedido', valor: '42' }] }));
    expect(res.status).toBe(201);
    expect(conforms('CobGerada', res.json)).toEqual([]);
    expect(res.json).toMatchObject({
      txid,
      revisao: 0,
      status: 'ATIVA',
      calendario: { expiracao: 3600, criacao: expect.any(String) },
      valor: { original: '25.00', modalidadeAlteracao: 0 },
      chave: RECEIVING_KEY,
      devedor: { cpf: '52998224725', nome: 'Joana Pagadora' },
      solicitacaoPagador: 'Pedido 42',
      infoAdicionais: [{ nome: 'Pedido', valor: '42' }],
      loc: { id: expect.any(Number), tipoCob: 'cob' },
    });
    const host = new URL(h.url).host;
    expect(res.json.location).toMatch(new RegExp(`^${host.replace(/\./g, '\\.')}/qr/v2/[0-9a-f]{32}$`));
    expect(res.json.loc.location).toBe(res.json.location);
    expect(res.json.pixCopiaECola).toContain(res.json.location);
  });

  it('answers a retried PUT with the same body with the same cob (one charge), and revises an ATIVA cob on another body', async () => {
    const txid = newTxid();
    const first = await h.pix('PUT', `/cob/${txid}`, cobBody());
    // Same content, keys in another order and the default modalidadeAlteracao spelt out.
    const { valor: _valor, ...rest } = cobBody();
    const retried = await h.pix('PUT', `/cob/${txid}`, {
      valor: { modalidadeAlteracao: 0, original: '25.00' },
      ...rest,
    });
    expect(retried.status).toBe(201);
    expect(retried.json).toEqual(first.json);
    expect([...h.sandbox.state.charges.values()].filter((r) => r.charge.txid === txid)).toHaveLength(1);

    const revised = await h.pix('PUT', `/cob/${txid}`, cobBody({ valor: { original: '30.00' }, devedor: undefined }));
    expect(revised.status).toBe(201);
    expect(revised.json).toMatchObject({
      revisao: 1,
      valor: { original: '30.00' },
      location: first.json.location,
      pixCopiaECola: first.json.pixCopiaECola,
    });
    expect(revised.json.devedor).toBeUndefined();
    // The history is kept: revision 0 still reads as it was.
    const old = await h.pix('GET', `/cob/${txid}?revisao=0`);
    expect(old.json).toMatchObject({ revisao: 0, valor: { original: '25.00' }, devedor: { nome: 'Joana Pagadora' } });
    expect(conforms('CobCompleta', old.json)).toEqual([]);
    const missing = await h.pix('GET', `/cob/${txid}?revisao=7`);
    expect([missing.status, missing.json.type]).toEqual([400, `${ERROR}CobConsultaInvalida`]);
  });

  it('refuses bad input with problem+json and its violações', async () => {
    const cases: [string, unknown, string, string][] = [
      [`/cob/short`, cobBody(), 'CobOperacaoInvalida', 'txid'],
      [`/cob/${newTxid()}`, cobBody({ valor: { original: '12,34' } }), 'CobOperacaoInvalida', 'cob.valor.original'],
      [`/cob/${newTxid()}`, cobBody({ valor: { original: '0.00' } }), 'CobOperacaoInvalida', 'cob.valor.original'],
      [
        `/cob/${newTxid()}`,
        cobBody({ calendario: { expiracao: 0 } }),
        'CobOperacaoInvalida',
        'cob.calendario.expiracao',
      ],
      [`/cob/${newTxid()}`, cobBody({ calendario: undefined }), 'CobOperacaoInvalida', 'cob.calendario'],
      [`/cob/${newTxid()}`, cobBody({ chave: 'someone-else@example.com' }), 'CobOperacaoInvalida', 'cob.chave'],
      [
        `/cob/${newTxid()}`,
        cobBody({ devedor: { cpf: '52998224725', cnpj: '11222333000181', nome: 'X' } }),
        'CobOperacaoInvalida',
        'cob.devedor',
      ],
      [`/cob/${newTxid()}`, cobBody({ loc: { id: 7 } }), 'CobOperacaoInvalida', 'cob.loc.id'],
    ];
    for (const [path, body, type, propriedade] of cases) {
      const res = await h.pix('PUT', path, body);
      expect({ path, propriedade, status: res.status, type: res.json?.type }).toEqual({
        path,
        propriedade,
        status: 400,
        type: `${ERROR}${type}`,
      });
      expect(res.contentType).toContain('application/problem+json');
      expect(res.json.violacoes.map((v: { propriedade: string }) => v.propriedade)).toContain(propriedade);
      expect(conforms('Problema', res.json)).toEqual([]);
    }
    // Not JSON at all, and a product this PSP does not offer.
    const text = await fetch(`${h.url}/api/v2/cob/${newTxid()}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${h.token}`, 'content-type': 'text/plain' },
      body: 'hello',
    });
    expect(text.status).toBe(400);
    const broken = await fetch(`${h.url}/api/v2/cob/${newTxid()}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${h.token}`, 'content-type': 'application/json' },
      body: '{"valor":',
    });
    expect([broken.status, ((await broken.json()) as any).type]).toEqual([400, `${ERROR}RequisicaoInvalida`]);
    const saque = await h.pix(
      'PUT',
      `/cob/${newTxid()}`,
      cobBody({ valor: { original: '0.01', retirada: { saque: { valor: '5.00' } } } }),
    );
    expect([saque.status, saque.json.type]).toEqual([403, `${ERROR}AcessoNegado`]);
  });

  it('POST /cob creates a cob with a txid of the PSP', async () => {
    const res = await h.pix('POST', '/cob', cobBody());
    expect(res.status).toBe(201);
    expect(res.json.txid).toMatch(/^[a-zA-Z0-9]{26,35}$/);
    expect(conforms('CobGerada', res.json)).toEqual([]);
  });
});

describe('PATCH /cob/{txid}', () => {
  it('removes an ATIVA cob (REMOVIDA_PELO_USUARIO_RECEBEDOR, revisao + 1); a removal again changes nothing; the payer can no longer pay it', async () => {
    const txid = newTxid();
    await h.pix('PUT', `/cob/${txid}`, cobBody());
    const removed = await h.pix('PATCH', `/cob/${txid}`, { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
    expect(removed.status).toBe(200);
    expect(removed.json).toMatchObject({ status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR', revisao: 1 });
    expect(conforms('CobGerada', removed.json)).toEqual([]);
    const again = await h.pix('PATCH', `/cob/${txid}`, { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
    expect(again.json).toEqual(removed.json);
    const pay = await h.call('POST', `/sandbox/charges/${txid}/pay`, {});
    expect([pay.status, pay.json.error.code]).toEqual([409, 'CHARGE_NOT_PAYABLE']);
    // Not ATIVA: another change is refused, and so is a PUT that would change it.
    expect((await h.pix('PATCH', `/cob/${txid}`, { solicitacaoPagador: 'outro' })).json.type).toBe(
      `${ERROR}CobOperacaoInvalida`,
    );
    expect((await h.pix('PUT', `/cob/${txid}`, cobBody({ valor: { original: '1.00' } }))).status).toBe(400);
  });

  it('revises fields, refuses removal together with changes, and 404s an unknown cob', async () => {
    const txid = newTxid();
    await h.pix('PUT', `/cob/${txid}`, cobBody());
    const revised = await h.pix('PATCH', `/cob/${txid}`, {
      valor: { original: '99.90' },
      calendario: { expiracao: 60 },
    });
    expect(revised.json).toMatchObject({
      revisao: 1,
      valor: { original: '99.90' },
      calendario: { expiracao: 60 },
      solicitacaoPagador: 'Pedido 42',
    });
    const nothing = await h.pix('PATCH', `/cob/${txid}`, {});
    expect(nothing.json.revisao).toBe(1);
    const both = await h.pix('PATCH', `/cob/${txid}`, {
      status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR',
      valor: { original: '1.00' },
    });
    expect([both.status, both.json.violacoes[0].propriedade]).toEqual([400, 'cob.status']);
    const unknown = await h.pix('PATCH', `/cob/${newTxid()}`, { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
    expect([unknown.status, unknown.json.type]).toEqual([404, `${ERROR}CobNaoEncontrado`]);
    // The charge follows the revision: /v1 sees the new amount.
    const charge = [...h.sandbox.state.charges.values()].find((r) => r.charge.txid === txid)!.charge;
    expect(charge.amountCents).toBe(9_990);
  });

  it('cannot remove a CONCLUIDA cob (400 CobOperacaoInvalida)', async () => {
    const txid = newTxid();
    await h.pix('PUT', `/cob/${txid}`, cobBody());
    expect((await h.call('POST', `/sandbox/charges/${txid}/pay`, {})).status).toBe(200);
    const res = await h.pix('PATCH', `/cob/${txid}`, { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({
      type: `${ERROR}CobOperacaoInvalida`,
      status: 400,
      violacoes: [{ propriedade: 'cob.status', razao: expect.stringContaining('CONCLUIDA') }],
    });
    // A retried create of the paid cob still answers it.
    const retried = await h.pix('PUT', `/cob/${txid}`, cobBody());
    expect([retried.status, retried.json.status]).toEqual([201, 'CONCLUIDA']);
  });
});

describe('a cob is a sandbox charge', () => {
  it('paid through the control route by txid: CONCLUIDA with the Pix; /v1, statements and infractions see the same charge', async () => {
    const txid = newTxid();
    const from = instant(-1_000);
    await h.pix('PUT', `/cob/${txid}`, cobBody());
    const paid = await h.call('POST', `/sandbox/charges/${txid}/pay`, {
      payer: { name: 'Fulano Pagador', ispb: '12345678' },
    });
    expect(paid.status).toBe(200);
    const e2e = paid.json.endToEndId as string;
    expect(isValidEndToEndId(e2e)).toBe(true);

    const cob = await h.pix('GET', `/cob/${txid}`);
    expect(cob.json).toMatchObject({
      status: 'CONCLUIDA',
      pix: [{ endToEndId: e2e, txid, valor: '25.00', chave: RECEIVING_KEY }],
    });
    expect(conforms('CobCompleta', cob.json)).toEqual([]);

    const charge = await v1('GET', `/v1/charges/${paid.json.id}`);
    expect(charge.json).toMatchObject({
      status: 'PAID',
      reference: txid,
      txid,
      amountCents: 2_500,
      endToEndId: e2e,
      copyPaste: cob.json.pixCopiaECola,
    });
    const statement = await v1(
      'GET',
      `/v1/statements?from=${encodeURIComponent(from)}&to=${encodeURIComponent(instant(1_000))}`,
    );
    expect(statement.json.payments).toContainEqual(
      expect.objectContaining({ providerChargeId: paid.json.id, reference: txid, endToEndId: e2e, amountCents: 2_500 }),
    );
    const infraction = await h.call('POST', `/sandbox/charges/${txid}/infractions`, { amountCents: 1_000 });
    expect(infraction.status).toBe(201);
    expect(infraction.json).toMatchObject({ endToEndId: e2e, reference: txid, amountCents: 1_000 });
    expect((await v1('GET', `/v1/infractions/${infraction.json.id}`)).json.endToEndId).toBe(e2e);
  });
});

describe('GET /cob', () => {
  it('lists the cobs created in [inicio, fim] with filters and paginacao, every page reachable', async () => {
    const inicio = await freshInstant();
    const txids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const txid = newTxid();
      txids.push(txid);
      await h.pix(
        'PUT',
        `/cob/${txid}`,
        cobBody(i === 4 ? { devedor: { cnpj: '11222333000181', nome: 'Empresa' } } : {}),
      );
    }
    const fim = instant(10);
    const seen: string[] = [];
    for (let page = 0; page < 3; page++) {
      const res = await h.pix(
        'GET',
        `/cob?inicio=${encodeURIComponent(inicio)}&fim=${encodeURIComponent(fim)}&paginacao.paginaAtual=${page}&paginacao.itensPorPagina=2`,
      );
      expect(res.status).toBe(200);
      expect(conforms('CobsConsultadas', res.json)).toEqual([]);
      expect(res.json.parametros.paginacao).toEqual({
        paginaAtual: page,
        itensPorPagina: 2,
        quantidadeDePaginas: 3,
        quantidadeTotalDeItens: 5,
      });
      seen.push(...res.json.cobs.map((c: { txid: string }) => c.txid));
    }
    expect(seen).toEqual(txids);
    const byCnpj = await h.pix(
      'GET',
      `/cob?inicio=${encodeURIComponent(inicio)}&fim=${encodeURIComponent(fim)}&cnpj=11222333000181`,
    );
    expect(byCnpj.json.cobs.map((c: { txid: string }) => c.txid)).toEqual([txids[4]]);
    const none = await h.pix(
      'GET',
      `/cob?inicio=${encodeURIComponent(inicio)}&fim=${encodeURIComponent(fim)}&status=CONCLUIDA`,
    );
    expect(none.json).toMatchObject({
      cobs: [],
      parametros: { status: 'CONCLUIDA', paginacao: { quantidadeDePaginas: 1, quantidadeTotalDeItens: 0 } },
    });
  });

  it('refuses a query that breaks the rules, naming each one', async () => {
    const res = await h.pix(
      'GET',
      `/cob?inicio=${encodeURIComponent(instant(0))}&fim=2001-01-01T00:00:00Z&cpf=1&cnpj=11222333000181&paginacao.itensPorPagina=0`,
    );
    expect(res.status).toBe(400);
    expect(res.json.type).toBe(`${ERROR}CobConsultaInvalida`);
    expect(res.json.violacoes.map((v: { propriedade: string }) => v.propriedade).sort()).toEqual([
      'cpf',
      'fim',
      'paginacao.itensPorPagina',
    ]);
    expect((await h.pix('GET', '/cob')).json.violacoes.map((v: { propriedade: string }) => v.propriedade)).toEqual([
      'inicio',
      'fim',
    ]);
  });
});

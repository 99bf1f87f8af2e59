/**
 * The Pix Automático client (activities/provider/pixApi/pixAutomaticoClient.ts) against a
 * scripted PSP behind a fake transport: each call's request (method, path, body), checked
 * against the BCB's document (zero violations, test/support/pixApiRequestValidator.ts, errata
 * applied), and what each answer and each problem becomes in our words and codes. The PSP over
 * HTTP is the sandbox's business (its own tests).
 */
import { ProviderError } from '../../core/provider';
import { cycleTxidFor, recContractFor } from '../../core/pix/apiPixIds';
import type { CreateCycleChargeRequest, CreateRecurrenceRequest } from '../../core/pixAutomatico/types';
import { AuthorizedCaller } from '../../activities/provider/pixApi/authorizedCall';
import { PixAutomaticoClient } from '../../activities/provider/pixApi/pixAutomaticoClient';
import { PixApiClient } from '../../activities/provider/pixApi/pixApiClient';
import type { PixApiConnection } from '../../activities/provider/pixApi/connection';
import type { TokenSource } from '../../activities/provider/pixApi/tokenSource';
import type { HttpAnswer, HttpExchange, PixApiTransport } from '../../activities/provider/pixApi/transport';
import { PixApiRequestValidator } from '../support/pixApiRequestValidator';

const BASE = 'https://psp.example/api/v2';
const ID_REC = 'RR1234567820261201abcdefghijk';
const SUBSCRIPTION = '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
const CONTRACT = recContractFor(SUBSCRIPTION);
const CYCLE = '0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e';
const TXID = cycleTxidFor(CYCLE);
const NOW = Date.parse('2026-12-01T12:00:00Z');

type Script = (req: HttpExchange) => HttpAnswer;

let validator: PixApiRequestValidator;
let sent: HttpExchange[];
let script: Script[];

beforeAll(async () => {
  validator = await PixApiRequestValidator.create({ apiRoot: '/api/v2' });
});

beforeEach(() => {
  sent = [];
  script = [];
});

afterEach(() => {
  // Every request the client built follows the BCB's document.
  const violations = sent.flatMap((r) =>
    validator.violationsOf({
      method: r.method,
      url: r.url.slice('https://psp.example'.length),
      headers: r.headers,
      body: r.body,
    }),
  );
  expect(violations).toEqual([]);
});

/** The PSP answers the queued answers in order; a request beyond them fails the test. */
function client(): PixAutomaticoClient {
  const { transport, tokens } = fakes();
  return new PixAutomaticoClient(new AuthorizedCaller(transport, tokens, BASE, () => NOW), () => NOW, 50);
}

function fakes(): { transport: PixApiTransport; tokens: TokenSource } {
  const transport = {
    send: async (req: HttpExchange) => {
      sent.push(req);
      const next = script.shift();
      if (!next) throw new Error(`unexpected request ${req.method} ${req.url}`);
      return next(req);
    },
  } as unknown as PixApiTransport;
  const tokens = { token: async () => 'token', reject: () => undefined } as unknown as TokenSource;
  return { transport, tokens };
}

function answer(status: number, body: unknown): Script {
  return () => ({ status, headers: {}, text: typeof body === 'string' ? body : JSON.stringify(body) });
}

function problem(status: number, type: string, detail = 'Texto do PSP que não chega à nossa API'): Script {
  return answer(status, {
    type: `https://pix.bcb.gov.br/api/v2/error/${type}`,
    title: type,
    status,
    detail,
  });
}

function req(i: number): { method: string; path: string; query: URLSearchParams; body: unknown } {
  const r = sent[i];
  const url = new URL(r.url);
  return {
    method: r.method,
    path: url.pathname.slice('/api/v2'.length),
    query: url.searchParams,
    body: r.body === undefined ? undefined : JSON.parse(r.body),
  };
}

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

const recRequest: CreateRecurrenceRequest = {
  contract: CONTRACT,
  object: 'Curso de Violão (assinatura)',
  debtor: { documentType: 'CPF', document: '52998224725', name: 'Fulano de Tal' },
  firstDueDate: '2027-01-05',
  lastDueDate: null,
  period: 'MONTHLY',
  amountCents: 4990,
  retryPolicy: 'THREE_RETRIES_IN_7_DAYS',
  locationId: 108,
  firstChargeTxid: '33beb661beda44a8928fef47dbeb2dc5',
};

function recAnswer(over: Record<string, unknown> = {}) {
  return {
    idRec: ID_REC,
    vinculo: {
      contrato: CONTRACT,
      devedor: { cpf: '52998224725', nome: 'Fulano de Tal' },
      objeto: 'Curso de Violão (assinatura)',
    },
    calendario: { dataInicial: '2027-01-05', periodicidade: 'MENSAL' },
    politicaRetentativa: 'PERMITE_3R_7D',
    recebedor: { cnpj: '11222333000181', nome: 'Escola de Música' },
    valor: { valorRec: '49.90' },
    status: 'CRIADA',
    loc: {
      criacao: '2026-12-01T12:00:00Z',
      id: 108,
      location: 'pix.example.com/qr/v2/rec/2353c790eefb11eaadc10242ac120002',
      idRec: ID_REC,
    },
    ativacao: { dadosJornada: { tipoJornada: 'JORNADA_3', txid: '33beb661beda44a8928fef47dbeb2dc5' } },
    atualizacao: [{ data: '2026-12-01T12:00:00Z', nome: 'CRIADA' }],
    ...over,
  };
}

function recPage(recs: unknown[], page = 0, pages = 1) {
  return {
    parametros: {
      inicio: '2026-12-01T11:00:00Z',
      fim: '2026-12-01T13:00:00Z',
      paginacao: {
        paginaAtual: page,
        itensPorPagina: 50,
        quantidadeDePaginas: pages,
        quantidadeTotalDeItens: recs.length,
      },
    },
    recs,
  };
}

const cycleRequest: CreateCycleChargeRequest = {
  idRec: ID_REC,
  dueDate: '2027-02-05',
  amountCents: 4990,
  adjustToBusinessDay: true,
  info: 'Curso de Violão: fevereiro de 2027',
  receiverAccount: { branch: '0001', account: '123456', accountType: 'CHECKING' },
};

function cobrAnswer(over: Record<string, unknown> = {}) {
  return {
    idRec: ID_REC,
    txid: TXID,
    calendario: { criacao: '2027-01-27', dataDeVencimento: '2027-02-05' },
    valor: { original: '49.90' },
    status: 'CRIADA',
    politicaRetentativa: 'PERMITE_3R_7D',
    ajusteDiaUtil: true,
    recebedor: { cnpj: '11222333000181', nome: 'Escola de Música', conta: '123456', tipoConta: 'CORRENTE' },
    atualizacao: [{ data: '2027-01-27T10:00:00Z', status: 'CRIADA' }],
    ...over,
  };
}

describe('PixApiClient.automatico', () => {
  it('speaks through the API Pix client’s own connection and base URL, with its bearer token', async () => {
    const { transport, tokens } = fakes();
    const connection = {
      transport,
      tokens,
      now: () => NOW,
      caller: (baseUrl: string) => new AuthorizedCaller(transport, tokens, baseUrl, () => NOW),
      close: async () => undefined,
    } as unknown as PixApiConnection;
    script.push(problem(404, 'NaoEncontrado'));
    expect(await new PixApiClient({ connection, baseUrl: BASE }).automatico.getCycleCharge(TXID)).toBeNull();
    expect(sent[0]).toMatchObject({
      method: 'GET',
      url: `${BASE}/cobr/${TXID}`,
      headers: { authorization: 'Bearer token' },
    });
  });
});

describe('locrec', () => {
  it('creates a location with POST /locrec (no body) and reads it back by id', async () => {
    const loc = { id: 12069, location: 'pix.example.com/qr/v2/rec/2353c790', criacao: '2026-12-01T12:00:00Z' };
    script.push(answer(201, loc), answer(200, { ...loc, idRec: ID_REC }));
    const c = client();
    expect(await c.createLocation()).toEqual({
      id: 12069,
      url: 'pix.example.com/qr/v2/rec/2353c790',
      createdAt: '2026-12-01T12:00:00Z',
      idRec: null,
    });
    expect(await c.getLocation(12069)).toMatchObject({ id: 12069, idRec: ID_REC });
    expect(req(0)).toMatchObject({ method: 'POST', path: '/locrec', body: undefined });
    expect(req(1)).toMatchObject({ method: 'GET', path: '/locrec/12069' });
  });

  it('an unknown location is null; a location id that is no positive integer is not sent', async () => {
    script.push(problem(404, 'NaoEncontrado'));
    expect(await client().getLocation(5)).toBeNull();
    expect(await failure(client().getLocation(0))).toMatchObject({ code: 'PIX_API_INVALID_REQUEST' });
    expect(sent).toHaveLength(1);
  });
});

describe('rec', () => {
  it('creates a recurrence after looking for one with our contract: GET /rec by the debtor, then POST /rec', async () => {
    script.push(
      answer(200, recPage([recAnswer({ idRec: 'RR1234567820261130zzzzzzzzzzz', vinculo: { contrato: 'other' } })])),
    );
    script.push(answer(201, recAnswer()));
    const rec = await client().createRecurrence(recRequest, '2026-12-01T11:59:00Z');
    expect(rec).toEqual({
      idRec: ID_REC,
      contract: CONTRACT,
      object: 'Curso de Violão (assinatura)',
      debtor: { documentType: 'CPF', document: '52998224725', name: 'Fulano de Tal' },
      status: 'CREATED',
      firstDueDate: '2027-01-05',
      lastDueDate: null,
      period: 'MONTHLY',
      amountCents: 4990,
      minimumAmountCents: null,
      retryPolicy: 'THREE_RETRIES_IN_7_DAYS',
      journey: 'JOURNEY_3',
      firstChargeTxid: '33beb661beda44a8928fef47dbeb2dc5',
      location: {
        id: 108,
        url: 'pix.example.com/qr/v2/rec/2353c790eefb11eaadc10242ac120002',
        createdAt: '2026-12-01T12:00:00Z',
        idRec: ID_REC,
      },
      payerIspb: null,
      qrCode: null,
      ending: null,
    });
    const lookup = req(0);
    expect(lookup).toMatchObject({ method: 'GET', path: '/rec' });
    expect(Object.fromEntries(lookup.query)).toEqual({
      inicio: '2026-12-01T10:59:00.000Z',
      fim: '2026-12-01T13:00:00.000Z',
      cpf: '52998224725',
      'paginacao.paginaAtual': '0',
      'paginacao.itensPorPagina': '50',
    });
    expect(req(1)).toEqual({
      method: 'POST',
      path: '/rec',
      query: new URLSearchParams(),
      body: {
        vinculo: {
          contrato: CONTRACT,
          devedor: { cpf: '52998224725', nome: 'Fulano de Tal' },
          objeto: 'Curso de Violão (assinatura)',
        },
        calendario: { dataInicial: '2027-01-05', periodicidade: 'MENSAL' },
        valor: { valorRec: '49.90' },
        politicaRetentativa: 'PERMITE_3R_7D',
        loc: 108,
        ativacao: { dadosJornada: { txid: '33beb661beda44a8928fef47dbeb2dc5' } },
      },
    });
  });

  it('a create retried after a lost answer finds the first recurrence by its contract (second page) and POSTs nothing', async () => {
    script.push(answer(200, recPage([], 0, 2)), answer(200, recPage([recAnswer({ status: 'APROVADA' })], 1, 2)));
    const rec = await client().createRecurrence(recRequest, '2026-12-01T11:59:00Z');
    expect(rec).toMatchObject({ idRec: ID_REC, status: 'APPROVED' });
    expect(sent.map((r) => r.method)).toEqual(['GET', 'GET']);
    expect(req(1).query.get('paginacao.paginaAtual')).toBe('1');
  });

  it('journey 2 without a fixed amount: valorMinimoRecebedor, an end date, a CNPJ debtor, no ativacao', async () => {
    script.push(answer(200, recPage([])), answer(201, recAnswer()));
    await client().createRecurrence(
      {
        ...recRequest,
        debtor: { documentType: 'CNPJ', document: '11222333000181', name: 'Empresa SA' },
        amountCents: null,
        minimumAmountCents: 1000,
        lastDueDate: '2027-12-05',
        retryPolicy: 'NO_RETRY',
        period: 'ANNUAL',
        firstChargeTxid: null,
      },
      '2026-12-01T11:59:00Z',
    );
    expect(req(0).query.get('cnpj')).toBe('11222333000181');
    expect(req(1).body).toMatchObject({
      vinculo: { devedor: { cnpj: '11222333000181', nome: 'Empresa SA' } },
      calendario: { dataInicial: '2027-01-05', dataFinal: '2027-12-05', periodicidade: 'ANUAL' },
      valor: { valorMinimoRecebedor: '10.00' },
      politicaRetentativa: 'NAO_PERMITE',
    });
    expect(req(1).body).not.toHaveProperty('ativacao');
  });

  it('a request that breaks the standard is not sent (contract over 35 characters)', async () => {
    const err = await failure(
      client().createRecurrence({ ...recRequest, contract: 'x'.repeat(36) }, '2026-12-01T11:59:00Z'),
    );
    expect(err).toMatchObject({ code: 'PIX_API_INVALID_REQUEST', transient: false });
    expect(sent).toHaveLength(0);
  });

  it('a POST /rec refused (400 RecOperacaoInvalida) is REC_REFUSED, permanent; the PSP’s words only in detail', async () => {
    script.push(answer(200, recPage([])), problem(400, 'RecOperacaoInvalida', 'dataInicial no passado'));
    const err = await failure(client().createRecurrence(recRequest, '2026-12-01T11:59:00Z'));
    expect(err).toMatchObject({ code: 'REC_REFUSED', transient: false, httpStatus: 400 });
    expect(err.message).not.toContain('dataInicial no passado');
    expect(err.detail).toContain('dataInicial no passado');
  });

  it('reads a recurrence, with the composite QR of journey 3 when asked with the first cob’s txid', async () => {
    script.push(
      answer(
        200,
        recAnswer({
          status: 'APROVADA',
          pagador: { ispbParticipante: '81102623', cpf: '52998224725' },
          dadosQR: { jornada: 'JORNADA_3', pixCopiaECola: '00020126…6304ABCD' },
        }),
      ),
    );
    const rec = await client().getRecurrence(ID_REC, { firstChargeTxid: '33beb661beda44a8928fef47dbeb2dc5' });
    expect(rec).toMatchObject({
      status: 'APPROVED',
      payerIspb: '81102623',
      qrCode: { journey: 'JOURNEY_3', copyPaste: '00020126…6304ABCD' },
    });
    expect(req(0)).toMatchObject({ method: 'GET', path: `/rec/${ID_REC}` });
    expect(req(0).query.get('txid')).toBe('33beb661beda44a8928fef47dbeb2dc5');
  });

  it('an unknown recurrence is null (404 NaoEncontrado); a bare 404 page is outcome unknown', async () => {
    script.push(problem(404, 'NaoEncontrado'), answer(404, '<html>not found</html>'));
    expect(await client().getRecurrence(ID_REC)).toBeNull();
    expect(await failure(client().getRecurrence(ID_REC))).toMatchObject({
      code: 'PROVIDER_OUTCOME_UNKNOWN',
      transient: true,
    });
  });

  it('an answer about another recurrence, or with a status the standard does not define, is outcome unknown', async () => {
    script.push(
      answer(200, recAnswer({ idRec: 'RR1234567820261201zzzzzzzzzzz' })),
      answer(200, recAnswer({ status: 'ATIVA' })),
    );
    expect(await failure(client().getRecurrence(ID_REC))).toMatchObject({ code: 'PROVIDER_OUTCOME_UNKNOWN' });
    expect(await failure(client().getRecurrence(ID_REC))).toMatchObject({ code: 'PROVIDER_OUTCOME_UNKNOWN' });
  });

  it('an idRec that is not 29 alphanumerics is not sent', async () => {
    expect(await failure(client().getRecurrence('RR123/../cob'))).toMatchObject({ code: 'PIX_API_INVALID_REQUEST' });
    expect(sent).toHaveLength(0);
  });

  it('links a location: PATCH /rec/{idRec} {loc}', async () => {
    script.push(answer(200, recAnswer()));
    expect(await client().linkLocation(ID_REC, 108)).toMatchObject({ location: { id: 108 } });
    expect(req(0)).toMatchObject({ method: 'PATCH', path: `/rec/${ID_REC}`, body: { loc: 108 } });
  });

  it('cancels: PATCH status CANCELADA, and the ending says who and why', async () => {
    script.push(
      answer(
        200,
        recAnswer({
          status: 'CANCELADA',
          encerramento: { cancelamento: { solicitante: 'USUARIO_RECEBEDOR', codigo: 'SLCR', descricao: 'a pedido' } },
        }),
      ),
    );
    expect(await client().cancelRecurrence(ID_REC)).toMatchObject({
      status: 'CANCELLED',
      ending: { kind: 'CANCELLED', code: 'SLCR', by: 'RECEIVER' },
    });
    expect(req(0)).toMatchObject({ method: 'PATCH', path: `/rec/${ID_REC}`, body: { status: 'CANCELADA' } });
  });

  it('a cancellation refused because the payer cancelled first answers the recurrence as it is', async () => {
    const cancelled = recAnswer({
      status: 'CANCELADA',
      encerramento: { cancelamento: { solicitante: 'USUARIO_PAGADOR', codigo: 'ACCL', descricao: 'pagador' } },
    });
    script.push(problem(400, 'RecOperacaoInvalida'), answer(200, cancelled));
    expect(await client().cancelRecurrence(ID_REC)).toMatchObject({ status: 'CANCELLED', ending: { by: 'PAYER' } });
  });

  it('a cancellation refused (409 conflict) of a recurrence still live stays refused', async () => {
    script.push(problem(409, 'RecOperacaoInvalida'), answer(200, recAnswer({ status: 'APROVADA' })));
    expect(await failure(client().cancelRecurrence(ID_REC))).toMatchObject({ code: 'REC_REFUSED', httpStatus: 409 });
  });

  it('a debtor the PSP masks is left out, not a reason to distrust the whole answer', async () => {
    script.push(
      answer(200, recAnswer({ vinculo: { contrato: CONTRACT, devedor: { cpf: '***.982.247-**', nome: 'Fulano' } } })),
    );
    expect(await client().getRecurrence(ID_REC)).toMatchObject({ idRec: ID_REC, contract: CONTRACT, debtor: null });
  });

  it('a rejected recurrence carries the rejection code', async () => {
    script.push(
      answer(200, recAnswer({ status: 'REJEITADA', encerramento: { rejeicao: { codigo: 'AP13', descricao: 'x' } } })),
    );
    expect(await client().getRecurrence(ID_REC)).toMatchObject({
      status: 'REJECTED',
      ending: { kind: 'REJECTED', code: 'AP13', by: null },
    });
  });
});

describe('solicrec (journey 1)', () => {
  const ID_SOLIC = 'SC1234567820261201abcdefghijk';
  const solic = (status: string) => ({
    idSolicRec: ID_SOLIC,
    idRec: ID_REC,
    calendario: { dataExpiracaoSolicitacao: '2026-12-31T12:00:00Z' },
    status,
    destinatario: { agencia: '0001', conta: '550689', cpf: '52998224725', ispbParticipante: '91193552' },
    atualizacao: [{ data: '2026-12-01T12:00:00Z', status: 'CRIADA' }],
  });

  it('sends the request to the payer’s account: POST /solicrec', async () => {
    script.push(answer(201, solic('CRIADA')));
    const made = await client().createAuthorizationRequest({
      idRec: ID_REC,
      expiresAt: '2026-12-31T12:00:00Z',
      payerAccount: {
        ispb: '91193552',
        branch: '0001',
        account: '550689',
        documentType: 'CPF',
        document: '52998224725',
      },
    });
    expect(made).toEqual({ id: ID_SOLIC, idRec: ID_REC, status: 'CREATED', expiresAt: '2026-12-31T12:00:00Z' });
    expect(req(0)).toMatchObject({
      method: 'POST',
      path: '/solicrec',
      body: {
        idRec: ID_REC,
        calendario: { dataExpiracaoSolicitacao: '2026-12-31T12:00:00Z' },
        destinatario: { agencia: '0001', conta: '550689', cpf: '52998224725', ispbParticipante: '91193552' },
      },
    });
  });

  it('reads and cancels it; a cancellation of an accepted request answers it accepted', async () => {
    script.push(answer(200, solic('ENVIADA')), answer(201, solic('CANCELADA')));
    script.push(problem(400, 'SolicRecOperacaoInvalida'), answer(200, solic('ACEITA')));
    const c = client();
    expect(await c.getAuthorizationRequest(ID_SOLIC)).toMatchObject({ status: 'SENT' });
    expect(await c.cancelAuthorizationRequest(ID_SOLIC)).toMatchObject({ status: 'CANCELLED' });
    expect(req(1)).toMatchObject({ method: 'PATCH', path: `/solicrec/${ID_SOLIC}`, body: { status: 'CANCELADA' } });
    expect(await c.cancelAuthorizationRequest(ID_SOLIC)).toMatchObject({ status: 'ACCEPTED' });
  });

  it('a refused request is SOLICREC_REFUSED; an unknown one is null', async () => {
    script.push(problem(400, 'SolicRecOperacaoInvalida'), problem(404, 'NaoEncontrado'));
    const c = client();
    const err = await failure(
      c.createAuthorizationRequest({
        idRec: ID_REC,
        expiresAt: '2026-12-31T12:00:00Z',
        payerAccount: {
          ispb: '91193552',
          branch: null,
          account: '550689',
          documentType: 'CPF',
          document: '52998224725',
        },
      }),
    );
    expect(err).toMatchObject({ code: 'SOLICREC_REFUSED', transient: false });
    expect(await c.getAuthorizationRequest(ID_SOLIC)).toBeNull();
  });
});

describe('cobr', () => {
  it('creates the cycle charge under our txid: PUT /cobr/{txid}', async () => {
    script.push(answer(201, cobrAnswer()));
    const cobr = await client().putCycleCharge(TXID, cycleRequest);
    expect(cobr).toEqual({
      txid: TXID,
      idRec: ID_REC,
      status: 'CREATED',
      dueDate: '2027-02-05',
      amountCents: 4990,
      retryPolicy: 'THREE_RETRIES_IN_7_DAYS',
      attempts: [],
      rejectionCode: null,
      cancellation: null,
      payments: [],
    });
    expect(req(0)).toMatchObject({
      method: 'PUT',
      path: `/cobr/${TXID}`,
      body: {
        idRec: ID_REC,
        calendario: { dataDeVencimento: '2027-02-05' },
        valor: { original: '49.90' },
        ajusteDiaUtil: true,
        infoAdicional: 'Curso de Violão: fevereiro de 2027',
        recebedor: { agencia: '0001', conta: '123456', tipoConta: 'CORRENTE' },
      },
    });
  });

  it('a PUT retried after the cobr moved on is answered by the cobr it created; another amount stays refused', async () => {
    script.push(problem(400, 'CobROperacaoInvalida'), answer(200, cobrAnswer({ status: 'ATIVA' })));
    expect(await client().putCycleCharge(TXID, cycleRequest)).toMatchObject({ txid: TXID, status: 'ACTIVE' });
    script.push(problem(400, 'CobROperacaoInvalida'), answer(200, cobrAnswer({ status: 'ATIVA' })));
    expect(await failure(client().putCycleCharge(TXID, { ...cycleRequest, amountCents: 5990 }))).toMatchObject({
      code: 'COBR_REFUSED',
    });
  });

  it('reads a paid cycle: attempts, payments, in our words', async () => {
    script.push(
      answer(
        200,
        cobrAnswer({
          status: 'CONCLUIDA',
          tentativas: [
            {
              dataLiquidacao: '2027-02-05',
              tipo: 'AGND',
              endToEndId: 'E12345678202702050800abcdef12345',
              status: 'REJEITADA',
              rejeicao: { codigo: 'AM04', descricao: 'saldo' },
              atualizacao: [],
            },
            {
              dataLiquidacao: '2027-02-08',
              tipo: 'RIFL',
              endToEndId: 'E12345678202702080800abcdef12346',
              status: 'PAGA',
              atualizacao: [],
            },
          ],
          pix: [
            {
              endToEndId: 'E12345678202702080800abcdef12346',
              txid: TXID,
              valor: '49.90',
              horario: '2027-02-08T08:01:00Z',
            },
          ],
        }),
      ),
    );
    expect(await client().getCycleCharge(TXID)).toMatchObject({
      status: 'PAID',
      attempts: [
        { settlementDate: '2027-02-05', kind: 'SCHEDULED', status: 'REJECTED', rejectionCode: 'AM04' },
        { settlementDate: '2027-02-08', kind: 'RECEIVER_RETRY', status: 'PAID', rejectionCode: null },
      ],
      payments: [{ endToEndId: 'E12345678202702080800abcdef12346', amountCents: 4990, paidAt: '2027-02-08T08:01:00Z' }],
    });
    expect(req(0)).toMatchObject({ method: 'GET', path: `/cobr/${TXID}` });
  });

  it('an unknown cobr is null; a 5xx is transient; a timeout-ish 504 too', async () => {
    script.push(problem(404, 'NaoEncontrado'), problem(503, 'ServicoIndisponivel'), answer(504, ''));
    const c = client();
    expect(await c.getCycleCharge(TXID)).toBeNull();
    expect(await failure(c.getCycleCharge(TXID))).toMatchObject({ code: 'PROVIDER_UNAVAILABLE', transient: true });
    expect(await failure(c.getCycleCharge(TXID))).toMatchObject({ code: 'PROVIDER_TIMEOUT', transient: true });
  });

  it('cancels (PATCH status CANCELADA); a cancellation refused because the cycle was paid answers it paid', async () => {
    script.push(
      answer(
        200,
        cobrAnswer({
          status: 'CANCELADA',
          encerramento: { cancelamento: { solicitante: 'USUARIO_RECEBEDOR', codigo: 'SLCR', descricao: 'x' } },
        }),
      ),
    );
    expect(await client().cancelCycleCharge(TXID)).toMatchObject({
      status: 'CANCELLED',
      cancellation: { by: 'RECEIVER', code: 'SLCR' },
    });
    expect(req(0)).toMatchObject({ method: 'PATCH', path: `/cobr/${TXID}`, body: { status: 'CANCELADA' } });
    script.push(problem(422, 'CobROperacaoInvalida'), answer(200, cobrAnswer({ status: 'CONCLUIDA' })));
    expect(await client().cancelCycleCharge(TXID)).toMatchObject({ status: 'PAID' });
  });

  it('orders a retry: POST /cobr/{txid}/retentativa/{data}; a repeated order for that date answers the charge', async () => {
    const withRetry = cobrAnswer({
      status: 'ATIVA',
      tentativas: [
        {
          dataLiquidacao: '2027-02-08',
          tipo: 'RIFL',
          endToEndId: 'E12345678202702080800abcdef12346',
          status: 'SOLICITADA',
          atualizacao: [],
        },
      ],
    });
    script.push(answer(201, withRetry));
    expect(await client().retryCycleCharge(TXID, '2027-02-08')).toMatchObject({
      attempts: [{ kind: 'RECEIVER_RETRY', status: 'REQUESTED', settlementDate: '2027-02-08' }],
    });
    expect(req(0)).toMatchObject({ method: 'POST', path: `/cobr/${TXID}/retentativa/2027-02-08`, body: undefined });
    script.push(problem(400, 'CobROperacaoInvalida'), answer(200, withRetry));
    expect(await client().retryCycleCharge(TXID, '2027-02-08')).toMatchObject({ status: 'ACTIVE' });
    script.push(problem(400, 'CobROperacaoInvalida'), answer(200, withRetry));
    expect(await failure(client().retryCycleCharge(TXID, '2027-02-09'))).toMatchObject({ code: 'COBR_REFUSED' });
    expect(await failure(client().retryCycleCharge(TXID, '8 Feb'))).toMatchObject({ code: 'PIX_API_INVALID_REQUEST' });
    expect(await failure(client().retryCycleCharge(TXID, '2027-13-01'))).toMatchObject({
      code: 'PIX_API_INVALID_REQUEST',
    });
  });

  it('a whole-charge rejection carries its code', async () => {
    script.push(
      answer(200, cobrAnswer({ status: 'REJEITADA', encerramento: { rejeicao: { codigo: 'MD01', descricao: 'x' } } })),
    );
    // MD01 is no code of the standard's list: read as it comes, the status says what happened.
    expect(await client().getCycleCharge(TXID)).toMatchObject({ status: 'REJECTED', rejectionCode: 'MD01' });
  });
});

describe('webhooks', () => {
  it('registers and reads the rec and cobr webhooks: PUT/GET /webhookrec, /webhookcobr', async () => {
    script.push(
      answer(200, ''),
      answer(200, { webhookUrl: 'https://gateway.example/w/rec-secret', criacao: '2026-12-01T12:00:00Z' }),
      answer(200, ''),
      problem(404, 'NaoEncontrado'),
    );
    const c = client();
    await c.putRecurrenceWebhook('https://gateway.example/w/rec-secret');
    expect(await c.getRecurrenceWebhook()).toMatchObject({ webhookUrl: 'https://gateway.example/w/rec-secret' });
    await c.putCycleChargeWebhook('https://gateway.example/w/cobr-secret');
    expect(await c.getCycleChargeWebhook()).toBeNull();
    expect(sent.map((_, i) => [req(i).method, req(i).path, req(i).body])).toEqual([
      ['PUT', '/webhookrec', { webhookUrl: 'https://gateway.example/w/rec-secret' }],
      ['GET', '/webhookrec', undefined],
      ['PUT', '/webhookcobr', { webhookUrl: 'https://gateway.example/w/cobr-secret' }],
      ['GET', '/webhookcobr', undefined],
    ]);
  });

  it('a refused registration is WEBHOOK_REFUSED; a URL that is no http(s) URL is not sent', async () => {
    script.push(problem(400, 'WebhookOperacaoInvalida'));
    const c = client();
    expect(await failure(c.putCycleChargeWebhook('https://gateway.example/w'))).toMatchObject({
      code: 'WEBHOOK_REFUSED',
    });
    expect(await failure(c.putRecurrenceWebhook('ftp://x'))).toMatchObject({ code: 'PIX_API_INVALID_REQUEST' });
  });
});

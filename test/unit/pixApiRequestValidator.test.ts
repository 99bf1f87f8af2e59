/**
 * The request validator the API Pix tests rely on ("zero violations") must see violations when
 * there are some, or zero would prove nothing. Requests written by hand here, good and bad.
 */
import { PixApiRequestValidator, type ReceivedRequest } from '../support/pixApiRequestValidator';

const TXID = '0123456789abcdef0123456789abcdef';
const json = { 'content-type': 'application/json' };
const cob = { calendario: { expiracao: 3600 }, valor: { original: '12.34' }, chave: '11222333000181' };
const ID_REC = 'RR1234567820261201abcdefghijk';
// The document's own example bodies recBody1 and cobRBody1, in short.
const rec = {
  vinculo: { contrato: '63100862', devedor: { cpf: '45164632481', nome: 'Fulano de Tal' }, objeto: 'Streaming' },
  calendario: { dataInicial: '2027-01-05', periodicidade: 'MENSAL' },
  valor: { valorRec: '35.00' },
  politicaRetentativa: 'NAO_PERMITE',
};
const cobr = {
  idRec: ID_REC,
  calendario: { dataDeVencimento: '2027-02-05' },
  valor: { original: '35.00' },
  ajusteDiaUtil: true,
  recebedor: { conta: '123456', tipoConta: 'CORRENTE' },
};

let validator: PixApiRequestValidator;

beforeAll(async () => {
  validator = await PixApiRequestValidator.create({ apiRoot: '/api/v2' });
});

const put = (url: string, body: unknown, headers: Record<string, string> = json): ReceivedRequest => ({
  method: 'PUT',
  url,
  headers,
  body: JSON.stringify(body),
});

describe('PixApiRequestValidator', () => {
  it.each<[string, ReceivedRequest]>([
    ['PUT /cob/{txid}', put(`/api/v2/cob/${TXID}`, cob)],
    [
      'PUT /cob/{txid} with a CPF debtor (the document writes that pattern as /^\\d{11}$/)',
      put(`/api/v2/cob/${TXID}`, { ...cob, devedor: { cpf: '52998224725', nome: 'Fulano' } }),
    ],
    [
      'PATCH /cob/{txid}',
      {
        method: 'PATCH',
        url: `/api/v2/cob/${TXID}`,
        headers: json,
        body: '{"status":"REMOVIDA_PELO_USUARIO_RECEBEDOR"}',
      },
    ],
    [
      'GET /pix with pagination',
      {
        method: 'GET',
        url: '/api/v2/pix?inicio=2026-03-01T00%3A00%3A00Z&fim=2026-03-02T00%3A00%3A00Z&paginacao.paginaAtual=1&paginacao.itensPorPagina=1000',
        headers: {},
      },
    ],
    [
      'PUT /pix/{e2eid}/devolucao/{id}',
      put('/api/v2/pix/E12345678202603011200abcdefghijk/devolucao/abc123', { valor: '1.00' }),
    ],
    [
      'PUT /webhook/{chave}',
      put('/api/v2/webhook/11222333000181', { webhookUrl: 'https://gateway.example/webhooks/pix/s' }),
    ],
    [
      'POST /rec without idRec (errata: the PSP assigns it)',
      { method: 'POST', url: '/api/v2/rec', headers: json, body: JSON.stringify(rec) },
    ],
    [
      'GET /rec/{idRec}?txid (the API route, not the payload route /rec/{recUrlAccessToken})',
      { method: 'GET', url: `/api/v2/rec/${ID_REC}?txid=${TXID}`, headers: {} },
    ],
    [
      'POST /solicrec without pagador (errata)',
      {
        method: 'POST',
        url: '/api/v2/solicrec',
        headers: json,
        body: JSON.stringify({
          idRec: ID_REC,
          calendario: { dataExpiracaoSolicitacao: '2026-12-20T12:17:11.926Z' },
          destinatario: { agencia: '2569', conta: '550689', cpf: '15231470190', ispbParticipante: '91193552' },
        }),
      },
    ],
    ['PUT /cobr/{txid}', put(`/api/v2/cobr/${TXID}`, cobr)],
    [
      'POST /cobr/{txid}/retentativa/{data}',
      { method: 'POST', url: `/api/v2/cobr/${TXID}/retentativa/2027-02-08`, headers: {} },
    ],
  ])('accepts %s', (_what, request) => {
    expect(validator.violationsOf(request)).toEqual([]);
  });

  it.each<[string, ReceivedRequest, RegExp]>([
    ['an amount without two decimals', put(`/api/v2/cob/${TXID}`, { ...cob, valor: { original: '12.3' } }), /pattern/],
    ['a cob without chave', put(`/api/v2/cob/${TXID}`, { calendario: cob.calendario, valor: cob.valor }), /chave/],
    ['a txid of 25 characters', put(`/api/v2/cob/${TXID.slice(7)}`, cob), /txid|pattern/],
    [
      'a CPF of 10 digits',
      put(`/api/v2/cob/${TXID}`, { ...cob, devedor: { cpf: '5299822472', nome: 'Fulano' } }),
      /cpf|oneOf|pattern/,
    ],
    [
      'a removal to another status',
      { method: 'PATCH', url: `/api/v2/cob/${TXID}`, headers: json, body: '{"status":"CANCELADA"}' },
      /enum|allowed/,
    ],
    [
      'a Pix range that is no timestamp',
      { method: 'GET', url: '/api/v2/pix?inicio=yesterday&fim=2026-03-02T00%3A00%3A00Z', headers: {} },
      /date-time/,
    ],
    [
      'a Pix list without fim',
      { method: 'GET', url: '/api/v2/pix?inicio=2026-03-01T00%3A00%3A00Z', headers: {} },
      /fim/,
    ],
    [
      'a page size above 1000',
      {
        method: 'GET',
        url: '/api/v2/pix?inicio=2026-03-01T00%3A00%3A00Z&fim=2026-03-02T00%3A00%3A00Z&paginacao.itensPorPagina=5000',
        headers: {},
      },
      /1000/,
    ],
    ['a webhook URL that is none', put('/api/v2/webhook/11222333000181', { webhookUrl: 'not a url' }), /uri/],
    ['a body not sent as JSON', put(`/api/v2/cob/${TXID}`, cob, { 'content-type': 'text/plain' }), /application\/json/],
    [
      'a recurrence without politicaRetentativa',
      {
        method: 'POST',
        url: '/api/v2/rec',
        headers: json,
        body: JSON.stringify({ ...rec, politicaRetentativa: undefined }),
      },
      /politicaRetentativa/,
    ],
    [
      'a recurrence of another period',
      {
        method: 'POST',
        url: '/api/v2/rec',
        headers: json,
        body: JSON.stringify({ ...rec, calendario: { dataInicial: '2027-01-05', periodicidade: 'DIARIA' } }),
      },
      /enum|allowed/,
    ],
    [
      'a cobr without the receiver’s account',
      put(`/api/v2/cobr/${TXID}`, { ...cobr, recebedor: undefined }),
      /recebedor/,
    ],
    ['a retry on no date', { method: 'POST', url: `/api/v2/cobr/${TXID}/retentativa/amanha`, headers: {} }, /date/],
    [
      'a route the standard does not have',
      { method: 'POST', url: '/api/v2/charges', headers: json, body: '{}' },
      /no operation/,
    ],
  ])('reports %s', (_what, request, expected) => {
    const violations = validator.violationsOf(request);
    expect(violations.length).toBeGreaterThan(0);
    expect(violations.join('\n')).toMatch(expected);
  });

  it('leaves requests outside the API root (the token endpoint) to others', () => {
    expect(validator.concerns({ method: 'POST', url: '/oauth/token', headers: {} })).toBe(false);
    expect(validator.concerns({ method: 'GET', url: `/api/v2/cob/${TXID}`, headers: {} })).toBe(true);
  });
});

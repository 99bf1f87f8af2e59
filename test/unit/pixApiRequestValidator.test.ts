/**
 * The request validator the API Pix tests rely on ("zero violations") must see violations when
 * there are some, or zero would prove nothing. Requests written by hand here, good and bad.
 */
import { PixApiRequestValidator, type ReceivedRequest } from '../support/pixApiRequestValidator';

const TXID = '0123456789abcdef0123456789abcdef';
const json = { 'content-type': 'application/json' };
const cob = { calendario: { expiracao: 3600 }, valor: { original: '12.34' }, chave: '11222333000181' };

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

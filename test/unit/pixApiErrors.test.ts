/**
 * How API Pix failures reach the gateway: a problem+json refusal is permanent under our own code
 * with the PSP's words kept out of the message (they go to `detail`, for logs); 5xx, 429 (with
 * Retry-After), timeouts and dropped connections are transient; an answer that is not one the
 * standard defines (a 2xx that does not parse, a bare 404 page, a redirect) is "outcome unknown",
 * transient, to be resolved by reading the resource back.
 */
import crypto from 'node:crypto';
import { ProviderError } from '../../core/provider';
import { PixApiClient } from '../../activities/provider/pixApi/pixApiClient';
import { pixApiTestbed, type PixApiTestbed } from '../support/pixApiTestbed';
import { problem, type FakeRequest } from '../support/fakePixPsp';

const TXID = '0123456789abcdef0123456789abcdef';
const E2E = 'E12345678202603011200abcdefghijk';
const COB = { calendario: { expiracao: 3600 }, valor: { original: '12.34' }, chave: '11222333000181' };

// Real TLS handshakes and a PKI made by openssl: slow when the whole suite shares two cores.
jest.setTimeout(120_000);

let bed: PixApiTestbed;
let client: PixApiClient;

beforeAll(async () => {
  bed = await pixApiTestbed();
  client = bed.client();
});

afterAll(async () => {
  await bed.close();
});

beforeEach(() => {
  bed.psp.requests.length = 0;
  bed.psp.respond = null;
  bed.psp.cobs.clear();
});

afterEach(() => {
  expect(bed.violations).toEqual([]);
});

/** The PSP answers every API request (not the token endpoint) with `answer`. */
function apiAnswers(answer: (req: FakeRequest) => ReturnType<NonNullable<typeof bed.psp.respond>>): void {
  bed.psp.respond = (req) => (req.url.startsWith('/api/v2/') ? answer(req) : undefined);
}

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

describe('API Pix refusals (problem+json)', () => {
  it('a cob refused with violacoes is permanent COB_REFUSED; the PSP’s reasons are in detail only', async () => {
    apiAnswers(() =>
      problem(400, 'CobOperacaoInvalida', [
        {
          razao: 'O campo cob.chave corresponde a uma conta que não pertence a este usuário recebedor.',
          propriedade: 'cob.chave',
          valor: '52998224725',
        },
      ]),
    );
    const err = await failure(client.putCob(TXID, COB));
    expect(err).toMatchObject({ code: 'COB_REFUSED', transient: false, httpStatus: 400 });
    expect(err.message).toContain('CobOperacaoInvalida');
    expect(err.message).not.toMatch(/não pertence|Fake PSP|cob\.chave/);
    expect(err.detail).toContain('cob.chave: O campo cob.chave corresponde a uma conta que não pertence');
    // A violation's value echoes what we sent (here a CPF): not even in the logs.
    expect(err.detail).not.toContain('52998224725');
  });

  it('a devolução refused is DEVOLUCAO_REFUSED, permanent', async () => {
    apiAnswers(() =>
      problem(400, 'PixDevolucaoInvalida', [
        { razao: 'excederia o valor do Pix originário', propriedade: 'devolucao.valor' },
      ]),
    );
    const err = await failure(client.putDevolucao(E2E, 'abc123', { valor: '1.00' }));
    expect(err).toMatchObject({ code: 'DEVOLUCAO_REFUSED', transient: false });
    expect(err.message).not.toContain('excederia');
  });

  it('a devolução of an unknown Pix is PIX_NOT_FOUND; removing an unknown cob is COB_NOT_FOUND', async () => {
    expect(await failure(client.putDevolucao(E2E, 'abc123', { valor: '1.00' }))).toMatchObject({
      code: 'PIX_NOT_FOUND',
      transient: false,
      httpStatus: 404,
    });
    expect(await failure(client.removeCob(TXID))).toMatchObject({
      code: 'COB_NOT_FOUND',
      transient: false,
      httpStatus: 404,
    });
  });

  it('403 AcessoNegado is PROVIDER_ACCESS_DENIED, permanent', async () => {
    apiAnswers(() => problem(403, 'AcessoNegado'));
    expect(await failure(client.getPix(E2E))).toMatchObject({
      code: 'PROVIDER_ACCESS_DENIED',
      transient: false,
      httpStatus: 403,
    });
  });

  it('a PSP’s private problem type is refused under our code without naming it in the message', async () => {
    apiAnswers(() => ({
      status: 422,
      body: { type: 'https://psp.example/errors/SaldoInsuficienteParaEstaOperacao', title: 'Saldo', status: 422 },
    }));
    const err = await failure(client.putDevolucao(E2E, 'abc123', { valor: '1.00' }));
    expect(err).toMatchObject({ code: 'DEVOLUCAO_REFUSED', transient: false });
    expect(err.message).not.toContain('SaldoInsuficiente');
  });
});

describe('API Pix transient failures', () => {
  it('429 is PROVIDER_RATE_LIMITED with Retry-After in seconds', async () => {
    apiAnswers(() => ({ ...problem(429, 'ServicoIndisponivel'), headers: { 'retry-after': '12' } }));
    expect(await failure(client.getCob(TXID))).toMatchObject({
      code: 'PROVIDER_RATE_LIMITED',
      transient: true,
      httpStatus: 429,
      retryAfterMs: 12_000,
    });
  });

  it('429 with Retry-After as an HTTP date', async () => {
    const at = new Date(Date.now() + 90_000).toUTCString();
    apiAnswers(() => ({ status: 429, raw: '', headers: { 'retry-after': at } }));
    const err = await failure(client.getCob(TXID));
    expect(err).toMatchObject({ code: 'PROVIDER_RATE_LIMITED', transient: true });
    expect(err.retryAfterMs).toBeGreaterThan(80_000);
    expect(err.retryAfterMs).toBeLessThanOrEqual(90_000);
  });

  it('503 ServicoIndisponivel is PROVIDER_UNAVAILABLE, transient, with its Retry-After', async () => {
    apiAnswers(() => ({ ...problem(503, 'ServicoIndisponivel'), headers: { 'retry-after': '3' } }));
    expect(await failure(client.putCob(TXID, COB))).toMatchObject({
      code: 'PROVIDER_UNAVAILABLE',
      transient: true,
      httpStatus: 503,
      retryAfterMs: 3000,
    });
  });

  it('500 and 504 are transient, without a Retry-After', async () => {
    apiAnswers(() => problem(500, 'ErroInternoDoServidor'));
    expect(await failure(client.getCob(TXID))).toMatchObject({
      code: 'PROVIDER_UNAVAILABLE',
      transient: true,
      retryAfterMs: null,
    });
    apiAnswers(() => problem(504, 'IndisponibilidadePorTempoEsgotado'));
    expect(await failure(client.getCob(TXID))).toMatchObject({ code: 'PROVIDER_TIMEOUT', transient: true });
  });

  it('a dropped connection is PROVIDER_UNAVAILABLE, transient', async () => {
    apiAnswers(() => ({ status: 0, destroy: true }));
    expect(await failure(client.putCob(TXID, COB))).toMatchObject({
      code: 'PROVIDER_UNAVAILABLE',
      transient: true,
      httpStatus: null,
    });
  });

  it('a PSP nobody listens for is PROVIDER_UNAVAILABLE, transient', async () => {
    const nowhere = new PixApiClient({
      baseUrl: 'https://127.0.0.1:9/api/v2',
      tokenUrl: 'https://127.0.0.1:9/oauth/token',
      clientId: 'id',
      clientSecret: 'secret',
      tls: bed.pemTls(),
      timeoutMs: 1000,
      allowPlainHttp: false,
    });
    try {
      expect(await failure(nowhere.getCob(TXID))).toMatchObject({ code: 'PROVIDER_UNAVAILABLE', transient: true });
    } finally {
      await nowhere.close();
    }
  });

  it('a PSP that does not answer in time is PROVIDER_TIMEOUT, transient', async () => {
    const impatient = bed.client({ timeoutMs: 1_000 });
    await impatient.getCob(TXID); // token and connection first: the deadline is then all the slow answer's
    apiAnswers(() => ({ status: 200, body: {}, delayMs: 5_000 }));
    const started = Date.now();
    expect(await failure(impatient.getCob(TXID))).toMatchObject({ code: 'PROVIDER_TIMEOUT', transient: true });
    expect(Date.now() - started).toBeLessThan(4_000);
  });
});

describe('API Pix answers of unknown outcome', () => {
  it('a 201 whose body is not JSON: PROVIDER_OUTCOME_UNKNOWN, transient', async () => {
    apiAnswers(() => ({ status: 201, raw: '<html>created?</html>' }));
    expect(await failure(client.putCob(TXID, COB))).toMatchObject({
      code: 'PROVIDER_OUTCOME_UNKNOWN',
      transient: true,
      httpStatus: 201,
    });
  });

  it('a 201 whose JSON is not a cob: PROVIDER_OUTCOME_UNKNOWN, and the detail names fields, not values', async () => {
    apiAnswers(() => ({
      status: 201,
      body: {
        txid: TXID,
        status: 'ATIVA',
        valor: { original: '12,34' },
        devedor: { cpf: '52998224725', nome: 'Fulano' },
      },
    }));
    const err = await failure(client.putCob(TXID, COB));
    expect(err).toMatchObject({ code: 'PROVIDER_OUTCOME_UNKNOWN', transient: true });
    expect(err.detail).toContain('valor.original');
    expect(err.detail).not.toContain('52998224725');
  });

  it('a cob answered for another txid: PROVIDER_OUTCOME_UNKNOWN', async () => {
    const other = crypto.randomBytes(16).toString('hex');
    bed.psp.respond = (req) =>
      req.method === 'PUT' && req.url.startsWith('/api/v2/cob/')
        ? { status: 201, body: { ...cobBody(), txid: other } }
        : undefined;
    expect(await failure(client.putCob(TXID, COB))).toMatchObject({
      code: 'PROVIDER_OUTCOME_UNKNOWN',
      transient: true,
    });
  });

  it('a bare 404 page is not "no such cob": PROVIDER_OUTCOME_UNKNOWN, not null', async () => {
    apiAnswers(() => ({ status: 404, raw: '<html>Not Found</html>' }));
    expect(await failure(client.getCob(TXID))).toMatchObject({
      code: 'PROVIDER_OUTCOME_UNKNOWN',
      transient: true,
      httpStatus: 404,
    });
  });

  it('a redirect is not followed: PROVIDER_OUTCOME_UNKNOWN', async () => {
    apiAnswers(() => ({ status: 307, raw: '', headers: { location: 'https://elsewhere.example/api/v2/cob' } }));
    expect(await failure(client.putCob(TXID, COB))).toMatchObject({
      code: 'PROVIDER_OUTCOME_UNKNOWN',
      transient: true,
      httpStatus: 307,
    });
    expect(bed.psp.calls()).toHaveLength(1);
  });
});

describe('requests the standard would refuse are not sent', () => {
  it.each([
    ['a short txid', () => client.putCob('abc', COB)],
    ['an amount with a comma', () => client.putCob(TXID, { ...COB, valor: { original: '12,34' } })],
    ['a zero amount', () => client.putCob(TXID, { ...COB, valor: { original: '0.00' } })],
    ['a non-positive expiry', () => client.putCob(TXID, { ...COB, calendario: { expiracao: 0 } })],
    [
      'a debtor with CPF and CNPJ',
      () =>
        client.putCob(TXID, { ...COB, devedor: { cpf: '52998224725', cnpj: '11222333000181', nome: 'X' } as never }),
    ],
    ['an e2eid of 31 characters', () => client.getPix(E2E.slice(1))],
    ['a devolução id with a dash', () => client.getDevolucao(E2E, 'abc-123')],
    [
      'a range that ends before it starts',
      () => client.listPix({ inicio: '2026-03-02T00:00:00Z', fim: '2026-03-01T00:00:00Z' }),
    ],
    ['a webhook URL that is not one', () => client.putWebhook('11222333000181', 'not a url')],
  ])('%s: PIX_API_INVALID_REQUEST, permanent', async (_what, call) => {
    expect(await failure(call())).toMatchObject({
      code: 'PIX_API_INVALID_REQUEST',
      transient: false,
      httpStatus: null,
    });
    expect(bed.psp.calls()).toEqual([]);
  });
});

function cobBody() {
  return {
    calendario: { criacao: new Date().toISOString(), expiracao: 3600 },
    txid: TXID,
    revisao: 0,
    status: 'ATIVA',
    valor: { original: '12.34' },
    chave: '11222333000181',
    location: '127.0.0.1/qr/v2/x',
    pixCopiaECola: '000201',
  };
}

/**
 * The API Pix operations the gateway uses, against the fake PSP over mutual TLS, each request
 * checked against the BCB's document (zero violations): cob create / read / remove, received Pix
 * by e2eid and by range (every page), devolução, webhook registration.
 */
import crypto from 'node:crypto';
import { ProviderError } from '../../core/provider';
import { txidFor } from '../../core/pix/apiPixIds';
import { centsToPixAmount } from '../../core/pix/pixAmount';
import { PixApiClient } from '../../activities/provider/pixApi/pixApiClient';
import { pixApiTestbed, type PixApiTestbed } from '../support/pixApiTestbed';

const CHAVE = '11222333000181';

// Real TLS handshakes and a PKI made by openssl: slow when the whole suite shares two cores.
jest.setTimeout(120_000);

let bed: PixApiTestbed;
let client: PixApiClient;

beforeAll(async () => {
  bed = await pixApiTestbed({ maxPageSize: 2 });
  client = bed.client();
});

afterAll(async () => {
  await bed.close();
});

beforeEach(() => {
  bed.psp.requests.length = 0;
  bed.psp.respond = null;
});

afterEach(() => {
  expect(bed.violations).toEqual([]);
});

afterAll(() => {
  // Every request of every test went through the validator.
  expect(bed.checked()).toBeGreaterThan(40);
});

function newCob(amountCents = 1234) {
  return {
    txid: txidFor(crypto.randomUUID()),
    cob: {
      calendario: { expiracao: 3600 },
      valor: { original: centsToPixAmount(amountCents) },
      chave: CHAVE,
      solicitacaoPagador: 'Pedido 42',
      devedor: { cpf: '52998224725', nome: 'Fulano de Tal' },
    },
  };
}

describe('cob', () => {
  it('creates a cob under our txid and answers the PSP’s copy-paste code and location', async () => {
    const { txid, cob } = newCob();
    const created = await client.putCob(txid, cob);
    expect(created).toMatchObject({ txid, status: 'ATIVA', valor: { original: '12.34' }, chave: CHAVE, revisao: 0 });
    expect(created.pixCopiaECola).toMatch(/^000201/);
    expect(created.location).toBeTruthy();
    const [put] = bed.psp.apiRequests();
    expect(put.method).toBe('PUT');
    expect(put.url).toBe(`/api/v2/cob/${txid}`);
    expect(JSON.parse(put.body)).toEqual(cob);
  });

  it('a retried create is the same cob', async () => {
    const { txid, cob } = newCob();
    const first = await client.putCob(txid, cob);
    const again = await client.putCob(txid, cob);
    expect(again.txid).toBe(first.txid);
    expect(again.location).toBeTruthy();
    expect([...bed.psp.cobs.keys()].filter((t) => t === txid)).toHaveLength(1);
  });

  it('a create retried after the cob was paid answers the paid cob instead of the PSP’s refusal', async () => {
    const { txid, cob } = newCob();
    await client.putCob(txid, cob);
    bed.psp.receive({ txid, valor: cob.valor.original });
    const again = await client.putCob(txid, cob);
    expect(again).toMatchObject({ txid, status: 'CONCLUIDA' });
  });

  it('a create of another amount under a paid cob’s txid stays refused', async () => {
    const { txid, cob } = newCob();
    await client.putCob(txid, cob);
    bed.psp.receive({ txid, valor: cob.valor.original });
    const err = await client.putCob(txid, { ...cob, valor: { original: '99.99' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ code: 'COB_REFUSED', transient: false });
  });

  it('reads a cob; an unknown txid is null', async () => {
    const { txid, cob } = newCob();
    await client.putCob(txid, cob);
    expect(await client.getCob(txid)).toMatchObject({ txid, status: 'ATIVA' });
    expect(await client.getCob(txidFor(crypto.randomUUID()))).toBeNull();
  });

  it('removes an active cob (REMOVIDA_PELO_USUARIO_RECEBEDOR), idempotently', async () => {
    const { txid, cob } = newCob();
    await client.putCob(txid, cob);
    expect(await client.removeCob(txid)).toMatchObject({ txid, status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
    expect(JSON.parse(bed.psp.apiRequests().find((r) => r.method === 'PATCH')!.body)).toEqual({
      status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR',
    });
    expect(await client.removeCob(txid)).toMatchObject({ txid, status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
  });

  it('removing a paid cob answers it paid: a paid charge stays paid', async () => {
    const { txid, cob } = newCob();
    await client.putCob(txid, cob);
    bed.psp.receive({ txid, valor: cob.valor.original });
    expect(await client.removeCob(txid)).toMatchObject({ txid, status: 'CONCLUIDA' });
  });
});

describe('received Pix', () => {
  it('reads a Pix by endToEndId; an unknown one is null', async () => {
    const { txid, cob } = newCob(500);
    await client.putCob(txid, cob);
    const received = bed.psp.receive({ txid, valor: '5.00' });
    expect(await client.getPix(received.endToEndId)).toMatchObject({
      endToEndId: received.endToEndId,
      txid,
      valor: '5.00',
    });
    expect(await client.getPix('E12345678202603011200zzzzzzzzzzz')).toBeNull();
  });

  it('lists every Pix of a range, following all pages', async () => {
    bed.psp.pix.length = 0;
    const base = Date.parse('2026-02-10T10:00:00Z');
    const inRange = Array.from({ length: 5 }, (_, i) =>
      bed.psp.receive({ valor: `${i + 1}.00`, horario: new Date(base + i * 60_000).toISOString() }),
    );
    bed.psp.receive({ valor: '9.00', horario: '2026-02-11T10:00:00.000Z' }); // outside the range
    bed.psp.requests.length = 0;

    const listed = await client.listPix({ inicio: '2026-02-10T00:00:00Z', fim: '2026-02-10T23:59:59Z' });

    expect(listed.map((p) => p.endToEndId).sort()).toEqual(inRange.map((p) => p.endToEndId).sort());
    const pages = bed.psp
      .apiRequests()
      .map((r) => new URL(r.url, 'https://x').searchParams.get('paginacao.paginaAtual'));
    expect(pages).toEqual(['0', '1', '2']); // the fake serves 2 a page
  });

  it('lists the Pix of one txid', async () => {
    const { txid, cob } = newCob(700);
    await client.putCob(txid, cob);
    const received = bed.psp.receive({ txid, valor: '7.00' });
    const listed = await client.listPix({
      inicio: new Date(Date.now() - 60_000).toISOString(),
      fim: new Date(Date.now() + 60_000).toISOString(),
      txid,
    });
    expect(listed.map((p) => p.endToEndId)).toEqual([received.endToEndId]);
  });

  it('an empty range is an empty list', async () => {
    expect(await client.listPix({ inicio: '2001-01-01T00:00:00Z', fim: '2001-01-02T00:00:00Z' })).toEqual([]);
  });

  it('a PSP that answers another page than asked is not believed', async () => {
    bed.psp.respond = (req) =>
      req.url.startsWith('/api/v2/pix?')
        ? {
            status: 200,
            body: {
              parametros: {
                inicio: '2026-02-10T00:00:00Z',
                fim: '2026-02-10T23:59:59Z',
                paginacao: { paginaAtual: 0, itensPorPagina: 2, quantidadeDePaginas: 3, quantidadeTotalDeItens: 5 },
              },
              pix: [],
            },
          }
        : undefined;
    const err = await client
      .listPix({ inicio: '2026-02-10T00:00:00Z', fim: '2026-02-10T23:59:59Z' })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'PROVIDER_OUTCOME_UNKNOWN', transient: true });
    expect(bed.psp.calls()).toHaveLength(2);
  });
});

describe('devolução', () => {
  it('asks for a devolução under our id and reads it back; an unknown id is null', async () => {
    const { txid, cob } = newCob(1000);
    await client.putCob(txid, cob);
    const received = bed.psp.receive({ txid, valor: '10.00' });
    const id = crypto.randomBytes(16).toString('hex');

    const asked = await client.putDevolucao(received.endToEndId, id, { valor: '4.00', descricao: 'Estorno parcial' });
    expect(asked).toMatchObject({ id, valor: '4.00', status: 'EM_PROCESSAMENTO' });
    expect(await client.getDevolucao(received.endToEndId, id)).toMatchObject({ id, status: 'EM_PROCESSAMENTO' });
    expect(await client.getDevolucao(received.endToEndId, 'unknown1')).toBeNull();
    expect(await client.getPix(received.endToEndId)).toMatchObject({
      devolucoes: [expect.objectContaining({ id, valor: '4.00' })],
    });
  });

  it('a retried devolução is the same devolução, not a refusal (the PSP refuses a used id)', async () => {
    const received = bed.psp.receive({ valor: '8.00' });
    const id = crypto.randomBytes(16).toString('hex');
    const first = await client.putDevolucao(received.endToEndId, id, { valor: '2.00' });
    const again = await client.putDevolucao(received.endToEndId, id, { valor: '2.00' });
    expect(again).toEqual(first);
    expect(bed.psp.calls().filter((c) => c.startsWith('PUT '))).toHaveLength(2);
    expect(await client.getPix(received.endToEndId)).toMatchObject({ devolucoes: [expect.objectContaining({ id })] });
    // Another amount under a used id stays refused.
    const other = await client.putDevolucao(received.endToEndId, id, { valor: '3.00' }).catch((e: unknown) => e);
    expect(other).toMatchObject({ code: 'DEVOLUCAO_REFUSED', transient: false });
  });

  it('a devolução beyond what was paid is refused: DEVOLUCAO_REFUSED', async () => {
    const received = bed.psp.receive({ valor: '3.00' });
    const err = await client.putDevolucao(received.endToEndId, 'r1', { valor: '3.01' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'DEVOLUCAO_REFUSED', transient: false, httpStatus: 400 });
  });
});

describe('webhook', () => {
  it('registers the callback URL for a key and reads it back; a key without one is null', async () => {
    const url = 'https://gateway.example/webhooks/pix/0123456789abcdef0123456789abcdef';
    await client.putWebhook(CHAVE, url);
    expect(await client.getWebhook(CHAVE)).toMatchObject({ webhookUrl: url });
    expect(await client.getWebhook('unknown@example.com')).toBeNull();
  });

  it('escapes a key that is an e-mail or a phone number in the path', async () => {
    await client.putWebhook('pix+loja@example.com', 'https://gateway.example/webhooks/pix/x');
    await client.putWebhook('+5511999990000', 'https://gateway.example/webhooks/pix/x');
    expect(bed.psp.apiRequests().map((r) => r.url)).toEqual([
      '/api/v2/webhook/pix%2Bloja%40example.com',
      '/api/v2/webhook/%2B5511999990000',
    ]);
    expect(await client.getWebhook('pix+loja@example.com')).toMatchObject({ chave: 'pix+loja@example.com' });
  });
});

/**
 * The charge half of the provider over API Pix (activities/provider/apiPixCharges.ts), against the
 * fake PSP over mutual TLS with every request checked against the BCB document: a charge is the
 * cob of txidFor(chargeId); PAID only on a Pix that GET /pix/{e2eid} backs (amount, txid, our
 * key); closing a paid cob keeps it paid; a cob the PSP never had is the contract's CHARGE_NOT_FOUND.
 * And the routing of the composed provider (routedPixProvider.ts) by the shape of the id.
 */
import crypto from 'node:crypto';
import { ApiPixCharges } from '../../activities/provider/apiPixCharges';
import { ownTransfers } from '../../activities/provider/ownTransfers';
import { RoutedPixProvider, isCob } from '../../activities/provider/routedPixProvider';
import { ApiPixReturns } from '../../activities/provider/apiPixReturns';
import type { HttpPixProvider } from '../../activities/provider/httpPixProvider';
import { txidFor } from '../../core/pix/apiPixIds';
import { ProviderError, type IssueChargeRequest } from '../../core/provider';
import { pixApiTestbed, type PixApiTestbed } from '../support/pixApiTestbed';
import type { FakeRequest } from '../support/fakePixPsp';
import { testLogger } from '../support/testLogs';

const CHAVE = '11222333000181';
const PAGADOR = {
  nome: 'Fulana de Tal',
  cpf: '11144477735',
  ispbParticipante: '12345678',
  nomeInstituicao: 'Banco Exemplo',
  agencia: '0001',
  conta: '1234567-8',
};

jest.setTimeout(120_000);

let bed: PixApiTestbed;
let charges: ApiPixCharges;

beforeAll(async () => {
  bed = await pixApiTestbed();
  charges = new ApiPixCharges({
    client: bed.client(),
    receivingKey: CHAVE,
    logger: testLogger('api-pix-charges-test'),
  });
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

function request(overrides: Partial<IssueChargeRequest> = {}): IssueChargeRequest {
  return {
    reference: crypto.randomUUID(),
    amountCents: 12_345,
    description: 'Pedido 42',
    expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    callbackUrl: 'http://127.0.0.1:1/unused',
    merchantName: 'Açaí & Café',
    ...overrides,
  };
}

/** Answers GET /pix/{e2eid} with `change` applied to the PSP's record (a PSP whose records disagree). */
function pixAnswerChanged(
  change: Record<string, unknown>,
): (req: FakeRequest) => { status: number; body: unknown } | undefined {
  return (req) => {
    const e2e = /^\/api\/v2\/pix\/([^/?]+)$/.exec(req.url)?.[1];
    const pix = e2e ? bed.psp.pix.find((p) => p.endToEndId === e2e) : undefined;
    return pix && req.method === 'GET' ? { status: 200, body: { ...pix, ...change } } : undefined;
  };
}

describe('issueCharge', () => {
  it('creates the cob of txidFor(charge id) on our key, with the amount, expiry, description and merchant name, and answers the PSP’s code', async () => {
    const req = request();
    const charge = await charges.issueCharge(req);
    const txid = txidFor(req.reference);
    expect(bed.psp.calls()).toEqual([`PUT /api/v2/cob/${txid}`]);
    const body = JSON.parse(bed.psp.apiRequests()[0].body);
    expect(body).toEqual({
      calendario: { expiracao: expect.any(Number) },
      valor: { original: '123.45' },
      chave: CHAVE,
      solicitacaoPagador: 'Pedido 42',
      infoAdicionais: [{ nome: 'Estabelecimento', valor: 'Açaí & Café' }],
    });
    // Rounded up: the cob takes payment at least as long as the charge does.
    expect(body.calendario.expiracao).toBeGreaterThanOrEqual(3599);
    expect(body.calendario.expiracao).toBeLessThanOrEqual(3600);
    expect(charge).toMatchObject({
      id: txid,
      txid,
      reference: req.reference,
      status: 'ACTIVE',
      amountCents: 12_345,
      paidAt: null,
      endToEndId: null,
      payer: null,
    });
    expect(charge.copyPaste).toBe(bed.psp.cobs.get(txid)!.pixCopiaECola);
    expect(Buffer.from(charge.qrCodeBase64, 'base64').subarray(1, 4).toString()).toBe('PNG');
  });

  it('sends no description or merchant name it does not have, and cuts a description at the standard’s 140 characters', async () => {
    const plain = request({ description: null, merchantName: null });
    await charges.issueCharge(plain);
    expect(Object.keys(JSON.parse(bed.psp.apiRequests()[0].body)).sort()).toEqual(['calendario', 'chave', 'valor']);
    bed.psp.requests.length = 0;
    await charges.issueCharge(request({ description: 'ç'.repeat(200) }));
    expect(JSON.parse(bed.psp.apiRequests()[0].body).solicitacaoPagador).toBe('ç'.repeat(140));
  });

  it('a retried create is the same cob', async () => {
    const req = request();
    const first = await charges.issueCharge(req);
    const again = await charges.issueCharge(req);
    expect(again.id).toBe(first.id);
    expect(bed.psp.cobs.size).toBeGreaterThan(0);
  });
});

describe('getCharge', () => {
  it('is PAID with the endToEndId, time and payer of a Pix the PSP’s own record backs (GET /pix/{e2eid})', async () => {
    const req = request();
    const { txid } = await charges.issueCharge(req);
    const pix = bed.psp.receive({ txid, valor: '123.45', pagador: PAGADOR });
    bed.psp.requests.length = 0;
    const charge = await charges.getCharge(txid);
    expect(bed.psp.calls()).toEqual([`GET /api/v2/cob/${txid}`, `GET /api/v2/pix/${pix.endToEndId}`]);
    expect(charge).toMatchObject({
      status: 'PAID',
      reference: req.reference,
      amountCents: 12_345,
      endToEndId: pix.endToEndId,
      paidAt: new Date(pix.horario).toISOString(),
      payer: {
        name: 'Fulana de Tal',
        document: '11144477735',
        documentType: 'CPF',
        ispb: '12345678',
        institution: 'Banco Exemplo',
        agency: '0001',
        account: '1234567-8',
        email: null,
        phone: null,
      },
    });
    // A read for settlement draws no QR image: nobody shows it, and it cost a payment's CPU.
    expect(charge.qrCodeBase64).toBe('');
  });

  it('reads a Pix without the payer extension as paid by an unknown payer', async () => {
    const { txid } = await charges.issueCharge(request());
    bed.psp.receive({ txid, valor: '123.45' });
    expect(await charges.getCharge(txid)).toMatchObject({ status: 'PAID', payer: null });
  });

  it.each([
    ['of another amount', { valor: '1.00' }],
    ['for another txid', { txid: txidFor(crypto.randomUUID()) }],
    ['received on another key', { chave: 'outra@chave.com' }],
  ])('is not PAID on a Pix %s than the cob (the PSP’s records disagree)', async (_what, change) => {
    const { txid } = await charges.issueCharge(request());
    bed.psp.receive({ txid, valor: '123.45' });
    bed.psp.respond = pixAnswerChanged(change);
    expect(await charges.getCharge(txid)).toMatchObject({
      status: 'ACTIVE',
      endToEndId: null,
      paidAt: null,
      payer: null,
    });
  });

  it('is not PAID on a Pix the PSP does not find by its endToEndId', async () => {
    const { txid } = await charges.issueCharge(request());
    bed.psp.receive({ txid, valor: '123.45' });
    bed.psp.respond = (req) =>
      req.method === 'GET' && req.url.startsWith('/api/v2/pix/')
        ? {
            status: 404,
            body: { type: 'https://pix.bcb.gov.br/api/v2/error/PixNaoEncontrado', title: 'x', status: 404 },
          }
        : undefined;
    expect((await charges.getCharge(txid)).status).toBe('ACTIVE');
  });

  it('a cob the PSP does not have is CHARGE_NOT_FOUND (404), the provider contract’s "no record"', async () => {
    const err = await charges.getCharge(txidFor(crypto.randomUUID())).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ code: 'CHARGE_NOT_FOUND', httpStatus: 404, transient: false });
  });

  it('a PSP that does not answer is a transient ProviderError (retried by the activity)', async () => {
    const { txid } = await charges.issueCharge(request());
    bed.psp.respond = () => ({
      status: 503,
      body: { type: 'https://pix.bcb.gov.br/api/v2/error/ServicoIndisponivel', title: 'x', status: 503 },
      headers: { 'retry-after': '7' },
    });
    const err = await charges.getCharge(txid).catch((e: unknown) => e);
    expect(err).toMatchObject({ transient: true, retryAfterMs: 7000 });
  });
});

describe('findChargeByReference', () => {
  it('finds the cob of our charge id, null for none, and asks nothing for an id that is not ours', async () => {
    const req = request();
    await charges.issueCharge(req);
    expect(await charges.findChargeByReference(req.reference)).toMatchObject({
      reference: req.reference,
      status: 'ACTIVE',
    });
    expect(await charges.findChargeByReference(crypto.randomUUID())).toBeNull();
    bed.psp.requests.length = 0;
    expect(await charges.findChargeByReference('order-42')).toBeNull();
    expect(bed.psp.calls()).toEqual([]);
  });
});

describe('closeCharge', () => {
  it('removes an ATIVA cob (PATCH REMOVIDA_PELO_USUARIO_RECEBEDOR) and answers it closed for the reason given', async () => {
    const { txid } = await charges.issueCharge(request());
    const closed = await charges.closeCharge(txid, 'EXPIRED');
    expect(bed.psp.calls().at(-1)).toBe(`PATCH /api/v2/cob/${txid}`);
    expect(JSON.parse(bed.psp.apiRequests().at(-1)!.body)).toEqual({ status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
    expect(closed.status).toBe('EXPIRED');
    expect((await charges.getCharge(txid)).status).toBe('CANCELLED');
  });

  it('a cob paid before the close stays PAID, with its payment', async () => {
    const { txid } = await charges.issueCharge(request());
    const pix = bed.psp.receive({ txid, valor: '123.45' });
    const closed = await charges.closeCharge(txid, 'CANCELLED');
    expect(closed).toMatchObject({ status: 'PAID', endToEndId: pix.endToEndId });
  });

  it('a cob never created is CHARGE_NOT_FOUND once a GET agrees', async () => {
    const txid = txidFor(crypto.randomUUID());
    await expect(charges.closeCharge(txid, 'EXPIRED')).rejects.toMatchObject({
      code: 'CHARGE_NOT_FOUND',
      httpStatus: 404,
    });
    expect(bed.psp.calls()).toEqual([`PATCH /api/v2/cob/${txid}`, `GET /api/v2/cob/${txid}`]);
  });
});

describe('RoutedPixProvider', () => {
  it('routes a charge by the shape of its id: a txid of ours to API Pix, anything else (sbx_ch_…) to the provider’s own API', async () => {
    const asked: string[] = [];
    const own = {
      getCharge: async (id: string) => (asked.push(`own get ${id}`), { id }),
      closeCharge: async (id: string) => (asked.push(`own close ${id}`), { id }),
      findChargeByReference: async (ref: string) => (asked.push(`own find ${ref}`), null),
    } as unknown as HttpPixProvider;
    const provider = new RoutedPixProvider({
      cobs: charges,
      returns: new ApiPixReturns({ client: bed.client() }),
      pixList: bed.client(),
      own,
      transfers: ownTransfers(own),
      infractions: own,
      directory: own,
    });
    const req = request();
    const issued = await provider.issueCharge(req);
    expect(isCob(issued.id)).toBe(true);
    expect(isCob('sbx_ch_01HZX')).toBe(false);
    expect((await provider.getCharge(issued.id)).reference).toBe(req.reference);
    await provider.getCharge('sbx_ch_01HZX');
    await provider.closeCharge('sbx_ch_01HZX', 'EXPIRED');
    // A reference with no cob: a charge the provider's own API issued before the switch.
    expect(await provider.findChargeByReference(crypto.randomUUID())).toBeNull();
    expect(asked).toEqual(['own get sbx_ch_01HZX', 'own close sbx_ch_01HZX', expect.stringMatching(/^own find /)]);
  });
});

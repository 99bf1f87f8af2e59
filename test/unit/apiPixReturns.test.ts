/**
 * Devoluções over API Pix (activities/provider/apiPixReturns.ts) against the fake PSP over mutual
 * TLS, each request checked against the BCB document: PUT /pix/{e2eid}/devolucao/{devolucaoIdFor(
 * refund id)}, followed from EM_PROCESSAMENTO to DEVOLVIDO (settled) or NAO_REALIZADO (released);
 * one still in processing is transient and found again under the same id; nothing is made twice.
 */
import crypto from 'node:crypto';
import { ApiPixReturns, DEVOLUCAO_PENDING_CODE } from '../../activities/provider/apiPixReturns';
import { devolucaoIdFor } from '../../core/pix/apiPixIds';
import { ProviderError } from '../../core/provider';
import { pixApiTestbed, type PixApiTestbed } from '../support/pixApiTestbed';

jest.setTimeout(120_000);

let bed: PixApiTestbed;

beforeAll(async () => {
  bed = await pixApiTestbed();
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

/** A PSP whose devoluções end after `reads` reads (the fake keeps them EM_PROCESSAMENTO otherwise). */
function settlingAfterWaits(e2e: string, status: 'DEVOLVIDO' | 'NAO_REALIZADO', waits = 1) {
  let waited = 0;
  return new ApiPixReturns({
    client: bed.client(),
    sleep: async () => {
      waited += 1;
      if (waited >= waits) for (const d of bed.psp.pix.find((p) => p.endToEndId === e2e)!.devolucoes) d.status = status;
    },
  });
}

it('asks for the devolução under the refund’s id and answers it once DEVOLVIDO, as a completed return of the payment', async () => {
  const pix = bed.psp.receive({ valor: '50.00' });
  const refundId = crypto.randomUUID();
  const transfer = await settlingAfterWaits(pix.endToEndId, 'DEVOLVIDO').returnPayment({
    reference: refundId,
    amountCents: 2_000,
    endToEndId: pix.endToEndId,
  });
  const id = devolucaoIdFor(refundId);
  expect(bed.psp.calls()).toEqual([
    `PUT /api/v2/pix/${pix.endToEndId}/devolucao/${id}`,
    `GET /api/v2/pix/${pix.endToEndId}/devolucao/${id}`,
  ]);
  expect(JSON.parse(bed.psp.apiRequests()[0].body)).toEqual({ valor: '20.00' });
  expect(transfer).toMatchObject({
    id,
    reference: refundId,
    status: 'COMPLETED',
    amountCents: 2_000,
    returnOf: pix.endToEndId,
    failureCode: null,
    endToEndId: expect.stringMatching(/^D/),
  });
});

it('a devolução NAO_REALIZADO is a refused return (our code, no endToEndId): only this releases', async () => {
  const pix = bed.psp.receive({ valor: '50.00' });
  const refundId = crypto.randomUUID();
  const transfer = await settlingAfterWaits(pix.endToEndId, 'NAO_REALIZADO').returnPayment({
    reference: refundId,
    amountCents: 1_013,
    endToEndId: pix.endToEndId,
  });
  expect(transfer).toMatchObject({
    reference: refundId,
    status: 'FAILED',
    failureCode: 'RETURN_REFUSED',
    failureReason: null,
    endToEndId: null,
  });
});

it('one still in processing is transient; asked again it is the same devolução (nothing returned twice), answered once finished', async () => {
  const pix = bed.psp.receive({ valor: '50.00' });
  const req = { reference: crypto.randomUUID(), amountCents: 3_000, endToEndId: pix.endToEndId };
  const impatient = new ApiPixReturns({ client: bed.client(), settleWithinMs: 0, sleep: async () => undefined });
  const err = await impatient.returnPayment(req).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ProviderError);
  expect(err).toMatchObject({ code: DEVOLUCAO_PENDING_CODE, transient: true });
  await expect(impatient.findPaymentReturn(req)).rejects.toMatchObject({
    code: DEVOLUCAO_PENDING_CODE,
    transient: true,
  });
  // A retried request: the PSP refuses the id as used, the client answers the devolução it names.
  await expect(impatient.returnPayment(req)).rejects.toMatchObject({ code: DEVOLUCAO_PENDING_CODE });
  expect(bed.psp.pix.find((p) => p.endToEndId === pix.endToEndId)!.devolucoes).toHaveLength(1);
  for (const d of bed.psp.pix.find((p) => p.endToEndId === pix.endToEndId)!.devolucoes) d.status = 'DEVOLVIDO';
  expect(await impatient.findPaymentReturn(req)).toMatchObject({
    reference: req.reference,
    status: 'COMPLETED',
    amountCents: 3_000,
  });
});

it('finds no devolução the PSP does not have (null), and a refusal up front is permanent', async () => {
  const pix = bed.psp.receive({ valor: '10.00' });
  const returns = new ApiPixReturns({ client: bed.client() });
  expect(await returns.findPaymentReturn({ reference: crypto.randomUUID(), endToEndId: pix.endToEndId })).toBeNull();
  // Nor of a payment API Pix does not know (one the provider's own API took: its lookup decides).
  bed.psp.respond = (req) =>
    req.url.includes('/devolucao/')
      ? {
          status: 404,
          body: {
            type: 'https://pix.bcb.gov.br/api/v2/error/PixNaoEncontrado',
            title: 'Pix não encontrado',
            status: 404,
          },
        }
      : undefined;
  expect(await returns.findPaymentReturn({ reference: crypto.randomUUID(), endToEndId: pix.endToEndId })).toBeNull();
  bed.psp.respond = null;
  const err = await returns
    .returnPayment({ reference: crypto.randomUUID(), amountCents: 1_001, endToEndId: pix.endToEndId })
    .catch((e: unknown) => e);
  expect(err).toMatchObject({ code: 'DEVOLUCAO_REFUSED', transient: false });
});

/** Sandbox boletos over real HTTP through the HttpPixProvider client, digits checked by validators we did not write. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { getBoletoInfo, isValidBoleto } from '@brazilian-utils/brazilian-utils';
import { boletoBancarioCodigoBarras, boletoBancarioLinhaDigitavel } from 'boleto-brasileiro-validator';
import { hasError, parsePix } from 'pix-utils';
import { dueDateFactor, parseSandboxFreeField } from '../../core/boletos';
import { isValidEndToEndId } from '../../core/pix/brcode';
import { verifyProviderCallbackSignature } from '../../core/pix/providerSignature';
import {
  PROVIDER_CALLBACK_SIGNATURE_HEADER,
  PROVIDER_CALLBACK_TIMESTAMP_HEADER,
  ProviderError,
  type ProviderBoleto,
  type ProviderBoletoCallback,
} from '../../core/provider';
import {
  CALLBACK_SECRET,
  boletoRequest,
  startReceiver,
  startSandbox,
  waitFor,
  type ReceivedCallback,
  type SandboxHarness,
} from './harness';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

function verify(cb: ReceivedCallback): boolean {
  return verifyProviderCallbackSignature(
    cb.rawBody,
    cb.headers[PROVIDER_CALLBACK_TIMESTAMP_HEADER],
    cb.headers[PROVIDER_CALLBACK_SIGNATURE_HEADER],
    CALLBACK_SECRET,
    Date.now(),
  );
}

/** The digits of an issued boleto, checked independently; the due date read with the boleto's own day as reference. */
function expectValidDigits(boleto: ProviderBoleto): void {
  expect(isValidBoleto(boleto.digitableLine)).toBe(true);
  expect(boletoBancarioLinhaDigitavel(boleto.digitableLine, true)).toBe(true);
  expect(boletoBancarioCodigoBarras(boleto.barcode)).toBe(true);
  const [y, m, d] = boleto.dueDate.split('-').map(Number);
  const info = getBoletoInfo(boleto.digitableLine, { referenceDate: new Date(y, m - 1, d) });
  expect(info).toMatchObject({ amount: boleto.amountCents, bankCode: '999' });
  const due = info!.expirationDate!;
  expect([due.getFullYear(), due.getMonth() + 1, due.getDate()]).toEqual([y, m, d]);
  expect(parseSandboxFreeField(boleto.barcode.slice(19)).nossoNumero).toBe(boleto.nossoNumero);
}

async function expectProviderError(promise: Promise<unknown>, code: string, httpStatus: number): Promise<void> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  expect(err).toMatchObject({ code, httpStatus, transient: false });
}

describe('sandbox boletos', () => {
  let h: SandboxHarness;
  let receiver: Receiver;
  beforeEach(async () => {
    h = await startSandbox();
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await h.close();
    await receiver.close();
  });

  it('issues a hybrid boleto, pays it by barcode, sends a signed callback and closes the Pix', async () => {
    const req = boletoRequest({ callbackUrl: receiver.callbackUrl, amountCents: 12_345 });
    const boleto = await h.provider.issueBoleto(req);
    expect(boleto).toMatchObject({
      id: expect.stringMatching(/^sbx_bol_/),
      reference: req.reference,
      status: 'REGISTERED',
      bankCode: '999',
      nossoNumero: '00000000000000001',
      dueDate: req.dueDate,
      amountCents: 12_345,
      fine: { percentBps: 200 },
      interest: { monthlyBps: 100 },
      payer: req.payer,
      pix: { status: 'ACTIVE' },
      payment: null,
    });
    expectValidDigits(boleto);
    // The Pix side: a valid BR Code for the same amount, with the boleto's txid.
    const pix = parsePix(boleto.pix.copyPaste);
    expect(hasError(pix)).toBe(false);
    expect(pix).toMatchObject({ transactionAmount: 123.45, merchantName: 'LOJA EXEMPLO' });
    expect(boleto.pix.qrCodeBase64.length).toBeGreaterThan(100);

    const pay = await h.call('POST', `/sandbox/boletos/${boleto.id}/pay`, {});
    expect(pay.status).toBe(200);
    expect(pay.json).toMatchObject({
      status: 'PAID',
      pix: { status: 'CLOSED' },
      payment: {
        via: 'BOLETO',
        amountCents: 12_345,
        expectedAmountCents: 12_345,
        late: false,
        amountMismatch: null,
        settlement: 'D1',
        endToEndId: null,
        payer: { name: 'Joana Pagadora', document: '52998224725', documentType: 'CPF' },
      },
    });
    expect(pay.json.payment.creditDate > pay.json.payment.paidDate).toBe(true);

    const [cb] = await waitFor(() => receiver.received.length > 0 && receiver.received);
    expect(verify(cb)).toBe(true);
    const event = cb.json as ProviderBoletoCallback;
    expect(event).toMatchObject({ type: 'boleto.paid', eventId: expect.stringMatching(/^evt_/) });
    expect(event.boleto).toEqual(pay.json);
    expect(await h.provider.getBoleto(boleto.id)).toEqual(pay.json);

    // The Pix is closed now: a second payment, either way, is refused.
    const again = await h.call('POST', `/sandbox/boletos/${boleto.id}/pay`, { via: 'PIX' });
    expect(again.status).toBe(409);
    expect(again.json.error).toMatchObject({ code: 'BOLETO_NOT_PAYABLE', status: 'PAID', paidVia: 'BOLETO' });
    await expectProviderError(h.provider.cancelBoleto(boleto.id), 'BOLETO_NOT_CANCELLABLE', 409);
    const log = await h.call('GET', `/sandbox/callbacks?boletoId=${boleto.id}`);
    expect(log.json.attempts).toEqual([expect.objectContaining({ eventId: event.eventId, delivered: true })]);
  });

  it('paid by its Pix first (by reference): settled D0 with an endToEndId, and the barcode is closed', async () => {
    const req = boletoRequest({ callbackUrl: receiver.callbackUrl });
    const boleto = await h.provider.issueBoleto(req);
    const pay = await h.call('POST', `/sandbox/boletos/${req.reference}/pay`, {
      via: 'PIX',
      payer: { ispb: '12345678' },
    });
    expect(pay.status).toBe(200);
    expect(pay.json).toMatchObject({
      id: boleto.id,
      status: 'PAID',
      pix: { status: 'PAID' },
      payment: { via: 'PIX', settlement: 'D0' },
    });
    expect(pay.json.payment.creditDate).toBe(pay.json.payment.paidDate);
    expect(isValidEndToEndId(pay.json.payment.endToEndId)).toBe(true);
    expect(pay.json.payment.endToEndId.startsWith('E12345678')).toBe(true);

    const byBarcode = await h.call('POST', `/sandbox/boletos/${boleto.id}/pay`, { via: 'BOLETO' });
    expect(byBarcode.status).toBe(409);
    expect(byBarcode.json.error).toMatchObject({ code: 'BOLETO_NOT_PAYABLE', paidVia: 'PIX' });
    const [cb] = await waitFor(() => receiver.received.length > 0 && receiver.received);
    expect(verify(cb)).toBe(true);
    expect(cb.json.boleto.payment.via).toBe('PIX');

    // Resend: the same event again.
    const resend = await h.call('POST', `/sandbox/boletos/${boleto.id}/resend-callback`);
    expect(resend).toMatchObject({ status: 202, json: { eventId: cb.json.eventId } });
    const [, second] = await waitFor(() => receiver.received.length === 2 && receiver.received);
    expect(second.rawBody.equals(cb.rawBody)).toBe(true);
  });

  it('cancels an unpaid boleto (and its Pix); then it cannot be paid; cancel is idempotent', async () => {
    const boleto = await h.provider.issueBoleto(boletoRequest({ callbackUrl: receiver.callbackUrl }));
    const cancelled = await h.provider.cancelBoleto(boleto.id);
    expect(cancelled).toMatchObject({
      status: 'CANCELLED',
      pix: { status: 'CLOSED' },
      cancelledAt: expect.any(String),
    });
    expect(await h.provider.cancelBoleto(boleto.id)).toEqual(cancelled);
    for (const via of ['BOLETO', 'PIX']) {
      const pay = await h.call('POST', `/sandbox/boletos/${boleto.id}/pay`, { via });
      expect(pay.status).toBe(409);
      expect(pay.json.error).toMatchObject({ code: 'BOLETO_NOT_PAYABLE', status: 'CANCELLED' });
    }
    expect((await h.call('POST', `/sandbox/boletos/${boleto.id}/resend-callback`)).json.error.code).toBe(
      'BOLETO_NOT_PAID',
    );
    await new Promise((r) => setTimeout(r, 50));
    expect(receiver.received).toHaveLength(0);
  });

  it('issue is idempotent on the reference; another body under it is a conflict; lookups by reference', async () => {
    const req = boletoRequest();
    const first = await h.provider.issueBoleto(req);
    const second = await h.provider.issueBoleto({ ...req });
    expect(second).toEqual(first);
    expect(h.sandbox.state.boletos.size).toBe(1);
    // Absent optional fields and explicit defaults are the same request.
    const { fine: _f, interest: _i, graceDays: _g, ...bare } = boletoRequest();
    const a = await h.provider.issueBoleto(bare);
    expect(await h.provider.issueBoleto({ ...bare, fine: null, interest: null, graceDays: 0 })).toEqual(a);

    await expectProviderError(h.provider.issueBoleto({ ...req, amountCents: 1 }), 'PROVIDER_IDEMPOTENCY_CONFLICT', 409);
    expect((await h.provider.findBoletoByReference(req.reference))?.id).toBe(first.id);
    expect(await h.provider.findBoletoByReference('nope')).toBeNull();
    await expectProviderError(h.provider.getBoleto('sbx_bol_unknown'), 'BOLETO_NOT_FOUND', 404);
    expect((await h.call('POST', '/sandbox/boletos/unknown/pay', {})).status).toBe(404);
  });

  it('refuses bad requests with 400 VALIDATION_ERROR', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const bad = [
      { dueDate: '2025-02-30' },
      { dueDate: '2020-01-01' }, // in the past
      { amountCents: 10_000_000_000 },
      { payer: { name: 'X', document: '123' } },
      { fine: { percentBps: -1 } },
      { graceDays: 61 },
    ];
    for (const patch of bad) {
      const res = await h.call(
        'POST',
        '/v1/boletos',
        { ...boletoRequest(), ...patch },
        { authorization: 'Bearer sbx_test_api_key', 'idempotency-key': crypto.randomUUID() },
      );
      expect([res.status, res.json.error.code]).toEqual([400, 'VALIDATION_ERROR']);
    }
    const boleto = await h.provider.issueBoleto(boletoRequest({ dueDate: today }));
    for (const body of [
      { via: 'TED' },
      { paidAt: 'yesterday' },
      { amountCents: 0 },
      { settlement: 'D2' },
      { unknown: 1 },
    ]) {
      expect((await h.call('POST', `/sandbox/boletos/${boleto.id}/pay`, body)).status).toBe(400);
    }
  });
});

describe('sandbox boletos around the 2025-02-22 factor reset (sandbox clock at 2025-02-10)', () => {
  let h: SandboxHarness;
  let receiver: Receiver;
  beforeEach(async () => {
    h = await startSandbox({ now: () => new Date('2025-02-10T12:00:00.000Z') });
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await h.close();
    await receiver.close();
  });

  it('issues valid digits for due dates before and after the reset', async () => {
    const dueDates = [
      '2025-02-10',
      '2025-02-20',
      '2025-02-21',
      '2025-02-22',
      '2025-02-23',
      '2025-03-31',
      '2025-12-31',
      '2027-06-15',
    ];
    const amounts = [1, 99, 1_000, 12_345, 500_000, 9_999_999, 123_456_789, 9_999_999_999];
    for (const [i, dueDate] of dueDates.entries()) {
      const boleto = await h.provider.issueBoleto(boletoRequest({ dueDate, amountCents: amounts[i] }));
      expectValidDigits(boleto);
      expect(boleto.barcode.slice(5, 9)).toBe(dueDateFactor(dueDate));
      expect(boleto.nossoNumero).toBe(String(i + 1).padStart(17, '0'));
    }
    const byDate = [...h.sandbox.state.boletos.values()].map((r) => [r.boleto.dueDate, r.boleto.barcode.slice(5, 9)]);
    expect(byDate.slice(2, 5)).toEqual([
      ['2025-02-21', '9999'],
      ['2025-02-22', '1000'],
      ['2025-02-23', '1001'],
    ]);
  });

  it('a late payment owes fine and interest; paying less is settled for what was paid and flagged', async () => {
    const boleto = await h.provider.issueBoleto(
      boletoRequest({ callbackUrl: receiver.callbackUrl, dueDate: '2025-02-21', amountCents: 100_000, graceDays: 1 }),
    );
    // 5 days late, past the 1 grace day: 2 % fine + 1 %/month × 5/30 = 2,000 + 167.
    const pay = await h.call('POST', `/sandbox/boletos/${boleto.id}/pay`, {
      paidAt: '2025-02-26',
      amountCents: 100_000,
    });
    expect(pay.status).toBe(200);
    expect(pay.json.payment).toMatchObject({
      paidDate: '2025-02-26',
      daysLate: 5,
      late: true,
      fineCents: 2_000,
      interestCents: 167,
      expectedAmountCents: 102_167,
      amountCents: 100_000,
      amountMismatch: 'UNDERPAID',
      settlement: 'D1',
      creditDate: '2025-02-27',
    });
    const [cb] = await waitFor(() => receiver.received.length > 0 && receiver.received);
    expect(verify(cb)).toBe(true);
    expect(cb.json.boleto.payment).toMatchObject({
      expectedAmountCents: 102_167,
      amountCents: 100_000,
      late: true,
      amountMismatch: 'UNDERPAID',
    });
  });

  it('within the grace days: late but nothing added; paid on a Friday, D1 credits Monday; D0 on request', async () => {
    const a = await h.provider.issueBoleto(boletoRequest({ dueDate: '2025-02-20', amountCents: 5_000, graceDays: 1 }));
    const pa = await h.call('POST', `/sandbox/boletos/${a.id}/pay`, { paidAt: '2025-02-21T20:00:00-03:00' });
    expect(pa.json.payment).toMatchObject({
      paidDate: '2025-02-21',
      daysLate: 1,
      late: true,
      expectedAmountCents: 5_000,
      amountMismatch: null,
      creditDate: '2025-02-24',
    });
    const b = await h.provider.issueBoleto(boletoRequest({ dueDate: '2025-02-20', amountCents: 5_000 }));
    const pb = await h.call('POST', `/sandbox/boletos/${b.id}/pay`, {
      paidAt: '2025-02-14',
      amountCents: 6_000,
      settlement: 'D0',
    });
    expect(pb.json.payment).toMatchObject({
      late: false,
      amountMismatch: 'OVERPAID',
      settlement: 'D0',
      creditDate: '2025-02-14',
    });
  });
});

describe('sandbox boletos on disk', () => {
  const dir = path.join(os.tmpdir(), `sandbox-boletos-${crypto.randomUUID()}`);
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('keeps boletos, their numbering and idempotency across a restart', async () => {
    const dataFile = path.join(dir, 'state.jsonl');
    const first = await startSandbox({ dataFile });
    const req = boletoRequest();
    const boleto = await first.provider.issueBoleto(req);
    await first.close();

    const second = await startSandbox({ dataFile });
    try {
      expect(await second.provider.getBoleto(boleto.id)).toEqual(boleto);
      expect(await second.provider.issueBoleto(req)).toEqual(boleto);
      expect((await second.provider.issueBoleto(boletoRequest())).nossoNumero).toBe('00000000000000002');
      expect((await second.call('POST', `/sandbox/boletos/${boleto.id}/pay`, { via: 'PIX' })).status).toBe(200);
    } finally {
      await second.close();
    }
    const third = await startSandbox({ dataFile });
    try {
      expect(await third.provider.getBoleto(boleto.id)).toMatchObject({
        status: 'PAID',
        pix: { status: 'PAID' },
        payment: { via: 'PIX' },
      });
    } finally {
      await third.close();
    }
  });
});

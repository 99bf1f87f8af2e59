import { isValidEndToEndId } from '../../core/pix/brcode';
import { verifyProviderCallbackSignature } from '../../core/pix/providerSignature';
import {
  PROVIDER_CALLBACK_SIGNATURE_HEADER,
  PROVIDER_CALLBACK_TIMESTAMP_HEADER,
  type ProviderCallback,
} from '../../core/provider';
import {
  CALLBACK_SECRET,
  chargeRequest,
  startReceiver,
  startSandbox,
  waitFor,
  type ReceivedCallback,
  type SandboxHarness,
} from './harness';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

function verify(cb: ReceivedCallback, secret = CALLBACK_SECRET): boolean {
  return verifyProviderCallbackSignature(
    cb.rawBody,
    cb.headers[PROVIDER_CALLBACK_TIMESTAMP_HEADER],
    cb.headers[PROVIDER_CALLBACK_SIGNATURE_HEADER],
    secret,
    Date.now(),
  );
}

describe('sandbox pay → signed callback', () => {
  let h: SandboxHarness;
  let receiver: Receiver;
  beforeEach(async () => {
    h = await startSandbox();
  });
  afterEach(async () => {
    await h.close();
    await receiver?.close();
  });

  it('pays an ACTIVE charge and POSTs a correctly signed charge.paid callback', async () => {
    receiver = await startReceiver();
    const charge = await h.provider.issueCharge(chargeRequest({ callbackUrl: receiver.callbackUrl }));

    const pay = await h.call('POST', `/sandbox/charges/${charge.id}/pay`);
    expect(pay.status).toBe(200);
    expect(pay.json).toMatchObject({
      id: charge.id,
      status: 'PAID',
      payer: { name: 'Pagador Sandbox', ispb: '99999999' },
    });
    expect(isValidEndToEndId(pay.json.endToEndId)).toBe(true);
    expect(pay.json.endToEndId.startsWith('E99999999')).toBe(true);

    const [cb] = await waitFor(() => receiver.received.length > 0 && receiver.received);
    expect(verify(cb)).toBe(true);
    expect(verify(cb, 'wrong-secret')).toBe(false);
    expect(cb.headers['content-type']).toContain('application/json');
    const event = cb.json as ProviderCallback;
    expect(event).toMatchObject({
      type: 'charge.paid',
      charge: { id: charge.id, status: 'PAID', reference: charge.reference },
    });
    expect(event.eventId).toMatch(/^evt_/);
    expect(event.charge).toEqual(pay.json);
    expect(await h.provider.getCharge(charge.id)).toEqual(pay.json);

    // The delivery log records it, without any header (no signatures exposed).
    const log = await h.call('GET', `/sandbox/callbacks?chargeId=${charge.id}`);
    expect(log.json.attempts).toEqual([
      expect.objectContaining({ eventId: event.eventId, attempt: 1, httpStatus: 200, delivered: true }),
    ]);
    expect(JSON.stringify(log.json)).not.toContain(cb.headers[PROVIDER_CALLBACK_SIGNATURE_HEADER] as string);
  });

  it('refuses to pay twice (409 with the status) and sends one callback only', async () => {
    receiver = await startReceiver();
    const charge = await h.provider.issueCharge(chargeRequest({ callbackUrl: receiver.callbackUrl }));
    expect((await h.call('POST', `/sandbox/charges/${charge.id}/pay`)).status).toBe(200);
    const again = await h.call('POST', `/sandbox/charges/${charge.id}/pay`);
    expect(again.status).toBe(409);
    expect(again.json.error).toMatchObject({
      code: 'CHARGE_NOT_PAYABLE',
      status: 'PAID',
      message: expect.stringContaining('PAID'),
    });
    await waitFor(() => receiver.received.length === 1);
    await new Promise((r) => setTimeout(r, 100));
    expect(receiver.received).toHaveLength(1);
  });

  it('pays by reference and applies payer overrides', async () => {
    receiver = await startReceiver();
    const req = chargeRequest({ callbackUrl: receiver.callbackUrl });
    await h.provider.issueCharge(req);
    const pay = await h.call('POST', `/sandbox/charges/${req.reference}/pay`, {
      payer: { name: 'Fulana de Tal', ispb: '12345678' },
    });
    expect(pay.status).toBe(200);
    expect(pay.json.reference).toBe(req.reference);
    expect(pay.json.payer).toMatchObject({
      name: 'Fulana de Tal',
      ispb: '12345678',
      documentType: 'CPF',
      document: '52998224725',
    });
    expect(pay.json.endToEndId.startsWith('E12345678')).toBe(true);

    expect((await h.call('POST', '/sandbox/charges/unknown/pay')).status).toBe(404);
    expect((await h.call('POST', `/sandbox/charges/${req.reference}/pay`, { payer: { ispb: 'x' } })).status).toBe(400);
  });

  it('retries on receiver errors with backoff, same eventId and body, until a 2xx', async () => {
    receiver = await startReceiver([500, 503]);
    const charge = await h.provider.issueCharge(chargeRequest({ callbackUrl: receiver.callbackUrl }));
    await h.call('POST', `/sandbox/charges/${charge.id}/pay`);

    const received = await waitFor(() => receiver.received.length === 3 && receiver.received);
    expect(new Set(received.map((c) => c.json.eventId)).size).toBe(1);
    expect(new Set(received.map((c) => c.rawBody.toString('utf8'))).size).toBe(1);
    for (const cb of received) expect(verify(cb)).toBe(true);

    const log = await waitFor(() => h.sandbox.state.callbacks.length === 3 && h.sandbox.state.callbacks);
    expect(log.map((a) => [a.attempt, a.httpStatus, a.delivered])).toEqual([
      [1, 500, false],
      [2, 503, false],
      [3, 200, true],
    ]);
    await new Promise((r) => setTimeout(r, 150));
    expect(receiver.received).toHaveLength(3); // no retry after success
  });

  it('retries on network errors and gives up after the configured attempts', async () => {
    receiver = await startReceiver();
    await receiver.close(); // nothing listens at callbackUrl any more
    const charge = await h.provider.issueCharge(chargeRequest({ callbackUrl: receiver.callbackUrl }));
    await h.call('POST', `/sandbox/charges/${charge.id}/pay`);
    // Harness delays [20, 40, 80, 160] → 5 attempts.
    const log = await waitFor(() => h.sandbox.state.callbacks.length === 5 && h.sandbox.state.callbacks);
    expect(log.every((a) => a.httpStatus === null && a.error !== null && !a.delivered)).toBe(true);
    await new Promise((r) => setTimeout(r, 400));
    expect(h.sandbox.state.callbacks).toHaveLength(5);
  });

  it('resend-callback re-delivers the same event (same eventId and body)', async () => {
    receiver = await startReceiver();
    const charge = await h.provider.issueCharge(chargeRequest({ callbackUrl: receiver.callbackUrl }));
    await h.call('POST', `/sandbox/charges/${charge.id}/pay`);
    await waitFor(() => receiver.received.length === 1);

    const resend = await h.call('POST', `/sandbox/charges/${charge.id}/resend-callback`);
    expect(resend.status).toBe(202);
    expect(resend.json.eventId).toBe(receiver.received[0].json.eventId);
    const [first, second] = await waitFor(() => receiver.received.length === 2 && receiver.received);
    expect(second.rawBody.equals(first.rawBody)).toBe(true);
    expect(verify(second)).toBe(true);
  });

  it('resend-callback on an unpaid charge is a 409', async () => {
    receiver = await startReceiver();
    const charge = await h.provider.issueCharge(chargeRequest({ callbackUrl: receiver.callbackUrl }));
    const res = await h.call('POST', `/sandbox/charges/${charge.id}/resend-callback`);
    expect(res.status).toBe(409);
    expect(res.json.error).toMatchObject({ code: 'CHARGE_NOT_PAID', status: 'ACTIVE' });
  });
});

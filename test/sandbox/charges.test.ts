import { hasError, isStaticPix, parsePix } from 'pix-utils';
import { hasValidCrc, isValidTxid } from '../../core/pix/brcode';
import { ProviderError } from '../../core/provider';
import { API_KEY, chargeRequest, startSandbox, type SandboxHarness } from './harness';

const auth = { authorization: `Bearer ${API_KEY}` };

async function rejection(promise: Promise<unknown>): Promise<ProviderError> {
  const err = await promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

describe('sandbox charges over HTTP', () => {
  let h: SandboxHarness;
  beforeAll(async () => {
    h = await startSandbox();
  });
  afterAll(() => h.close());

  it('answers /health without auth', async () => {
    expect(await h.call('GET', '/health')).toEqual({ status: 200, json: { ok: true } });
  });

  it('issues an ACTIVE charge with txid, a valid BR Code and a PNG QR code', async () => {
    const req = chargeRequest({ amountCents: 1_999 });
    const charge = await h.provider.issueCharge(req);

    expect(charge).toMatchObject({
      reference: req.reference,
      status: 'ACTIVE',
      amountCents: 1_999,
      paidAt: null,
      endToEndId: null,
      payer: null,
      expiresAt: req.expiresAt,
    });
    expect(charge.id).toMatch(/^sbx_ch_[a-zA-Z0-9]+$/);
    expect(isValidTxid(charge.txid)).toBe(true);
    expect(hasValidCrc(charge.copyPaste)).toBe(true);
    const parsed = parsePix(charge.copyPaste);
    if (hasError(parsed) || !isStaticPix(parsed)) throw new Error('BR Code did not parse');
    expect(parsed.transactionAmount).toBe(19.99);
    expect(parsed.infoAdicional).toContain(charge.txid);
    const png = Buffer.from(charge.qrCodeBase64, 'base64');
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  });

  it('replays the same charge for the same key and body (201 then 200)', async () => {
    const req = chargeRequest();
    const headers = { ...auth, 'idempotency-key': req.reference };
    const first = await h.call('POST', '/v1/charges', req, headers);
    const second = await h.call('POST', '/v1/charges', { ...req }, headers);
    expect(first.status).toBe(201);
    expect(second.status).toBe(200);
    expect(second.json).toEqual(first.json);
    // Through the client too, and key order in the body does not matter.
    const reordered = Object.fromEntries(Object.entries(req).reverse()) as typeof req;
    expect((await h.provider.issueCharge(reordered)).id).toBe(first.json.id);
    expect([...h.sandbox.state.charges.values()].filter((c) => c.charge.reference === req.reference)).toHaveLength(1);
  });

  it('answers 409 → PROVIDER_IDEMPOTENCY_CONFLICT (permanent) for the same key with another body', async () => {
    const req = chargeRequest();
    await h.provider.issueCharge(req);
    const err = await rejection(h.provider.issueCharge({ ...req, amountCents: req.amountCents + 1 }));
    expect(err).toMatchObject({ code: 'PROVIDER_IDEMPOTENCY_CONFLICT', transient: false, httpStatus: 409 });
  });

  it('issues concurrent same-key requests exactly once', async () => {
    const req = chargeRequest();
    const charges = await Promise.all(Array.from({ length: 5 }, () => h.provider.issueCharge(req)));
    expect(new Set(charges.map((c) => c.id)).size).toBe(1);
  });

  it('requires the Idempotency-Key header', async () => {
    const res = await h.call('POST', '/v1/charges', chargeRequest(), auth);
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('IDEMPOTENCY_KEY_REQUIRED');
  });

  it('validates the body: 400 with {error:{code,message}} → permanent ProviderError', async () => {
    const res = await h.call(
      'POST',
      '/v1/charges',
      { reference: 'x', amountCents: -5 },
      { ...auth, 'idempotency-key': 'k1' },
    );
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringContaining('amountCents') });

    const err = await rejection(h.provider.issueCharge(chargeRequest({ callbackUrl: 'ftp://nope' })));
    expect(err).toMatchObject({ code: 'VALIDATION_ERROR', transient: false, httpStatus: 400 });
    const past = await rejection(
      h.provider.issueCharge(chargeRequest({ expiresAt: new Date(Date.now() - 1_000).toISOString() })),
    );
    expect(past).toMatchObject({ code: 'VALIDATION_ERROR', transient: false });
  });

  it('rejects malformed JSON with 400', async () => {
    const res = await fetch(`${h.url}/v1/charges`, {
      method: 'POST',
      headers: { ...auth, 'idempotency-key': 'k2', 'content-type': 'application/json' },
      body: '{"reference":',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.code).toBe('INVALID_REQUEST');
  });

  it('requires the API key on every /v1 route', async () => {
    const charge = await h.provider.issueCharge(chargeRequest());
    const variants: Record<string, string>[] = [{}, { authorization: 'Bearer wrong' }, { authorization: API_KEY }];
    for (const headers of variants) {
      const res = await h.call('GET', `/v1/charges/${charge.id}`, undefined, headers);
      expect(res.status).toBe(401);
      expect(res.json.error.code).toBe('UNAUTHORIZED');
    }
    const res = await h.call('POST', '/v1/transfers', {}, { 'idempotency-key': 'k' });
    expect(res.status).toBe(401);
  });

  it('gets by id (404 → CHARGE_NOT_FOUND) and finds by reference (null when none)', async () => {
    const req = chargeRequest();
    const charge = await h.provider.issueCharge(req);
    expect(await h.provider.getCharge(charge.id)).toEqual(charge);
    expect(await h.provider.findChargeByReference(req.reference)).toEqual(charge);
    expect(await h.provider.findChargeByReference('no-such-reference')).toBeNull();
    const err = await rejection(h.provider.getCharge('sbx_ch_missing'));
    expect(err).toMatchObject({ code: 'CHARGE_NOT_FOUND', transient: false, httpStatus: 404 });
  });

  it('closes an ACTIVE charge idempotently; the first reason wins', async () => {
    const charge = await h.provider.issueCharge(chargeRequest());
    expect((await h.provider.closeCharge(charge.id, 'CANCELLED')).status).toBe('CANCELLED');
    expect((await h.provider.closeCharge(charge.id, 'CANCELLED')).status).toBe('CANCELLED');
    expect((await h.provider.closeCharge(charge.id, 'EXPIRED')).status).toBe('CANCELLED');
    expect((await h.provider.getCharge(charge.id)).status).toBe('CANCELLED');
    const pay = await h.call('POST', `/sandbox/charges/${charge.id}/pay`);
    expect(pay.status).toBe(409);
    expect(pay.json.error).toMatchObject({ code: 'CHARGE_NOT_PAYABLE', status: 'CANCELLED' });
  });

  it('keeps a PAID charge PAID when closed', async () => {
    const charge = await h.provider.issueCharge(chargeRequest());
    expect((await h.call('POST', `/sandbox/charges/${charge.id}/pay`)).status).toBe(200);
    const closed = await h.provider.closeCharge(charge.id, 'EXPIRED');
    expect(closed.status).toBe('PAID');
    expect(closed.paidAt).not.toBeNull();
  });

  it('validates the close reason', async () => {
    const charge = await h.provider.issueCharge(chargeRequest());
    const res = await h.call('POST', `/v1/charges/${charge.id}/close`, { reason: 'PAID' }, auth);
    expect(res.status).toBe(400);
  });
});

describe('sandbox charge expiry', () => {
  let clock = new Date('2030-01-01T12:00:00.000Z');
  let h: SandboxHarness;
  beforeAll(async () => {
    h = await startSandbox({ now: () => clock });
  });
  afterAll(() => h.close());

  it('reports a charge past expiresAt as EXPIRED and refuses to pay it', async () => {
    const expiresAt = new Date(clock.getTime() + 60_000).toISOString();
    const charge = await h.provider.issueCharge(chargeRequest({ expiresAt }));
    expect(charge.status).toBe('ACTIVE');

    clock = new Date(clock.getTime() + 60_000);
    expect((await h.provider.getCharge(charge.id)).status).toBe('EXPIRED');
    expect((await h.provider.findChargeByReference(charge.reference))?.status).toBe('EXPIRED');

    const pay = await h.call('POST', `/sandbox/charges/${charge.id}/pay`);
    expect(pay.status).toBe(409);
    expect(pay.json.error).toMatchObject({ code: 'CHARGE_NOT_PAYABLE', status: 'EXPIRED' });
    // Closing as CANCELLED after expiry keeps it EXPIRED.
    expect((await h.provider.closeCharge(charge.id, 'CANCELLED')).status).toBe('EXPIRED');
  });
});

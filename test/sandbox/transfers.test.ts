import { isValidEndToEndId } from '../../core/pix/brcode';
import { ProviderError } from '../../core/provider';
import { API_KEY, startSandbox, transferRequest, type SandboxHarness } from './harness';

describe('sandbox transfers over HTTP', () => {
  let h: SandboxHarness;
  beforeAll(async () => {
    h = await startSandbox();
  });
  afterAll(() => h.close());

  it('completes a normal transfer with an end-to-end id', async () => {
    const req = transferRequest();
    const transfer = await h.provider.transfer(req);
    expect(transfer).toMatchObject({
      reference: req.reference,
      status: 'COMPLETED',
      amountCents: req.amountCents,
      pixKey: req.pixKey,
      pixKeyType: req.pixKeyType,
      recipientName: req.recipientName,
      failureCode: null,
      failureReason: null,
    });
    expect(transfer.id).toMatch(/^sbx_tr_/);
    expect(isValidEndToEndId(transfer.endToEndId ?? '')).toBe(true);
  });

  it('fails with INVALID_PIX_KEY when the key contains "invalid"', async () => {
    const transfer = await h.provider.transfer(transferRequest({ pixKey: 'invalid-key@example.com' }));
    expect(transfer).toMatchObject({ status: 'FAILED', failureCode: 'INVALID_PIX_KEY', endToEndId: null });
    expect(transfer.failureReason).toEqual(expect.any(String));
  });

  it('fails with RECIPIENT_REFUSED when the recipient name contains "REFUSE"', async () => {
    const transfer = await h.provider.transfer(transferRequest({ recipientName: 'Joao REFUSE Silva' }));
    expect(transfer).toMatchObject({ status: 'FAILED', failureCode: 'RECIPIENT_REFUSED' });
  });

  it('replays the same transfer (201 then 200) and moves money once', async () => {
    const req = transferRequest();
    const headers = { authorization: `Bearer ${API_KEY}`, 'idempotency-key': req.reference };
    const first = await h.call('POST', '/v1/transfers', req, headers);
    const second = await h.call('POST', '/v1/transfers', req, headers);
    const third = await h.provider.transfer(req);
    expect([first.status, second.status]).toEqual([201, 200]);
    expect(second.json).toEqual(first.json);
    expect(third).toEqual(first.json);

    const all = await h.call('GET', '/sandbox/transfers');
    expect(all.json.references[req.reference]).toEqual({ requests: 3, created: 1 });
    expect(all.json.transfers.filter((t: { reference: string }) => t.reference === req.reference)).toHaveLength(1);
  });

  it('treats absent and null recipientDocument alike for idempotency', async () => {
    const req = transferRequest({ recipientDocument: null });
    const a = await h.provider.transfer(req);
    const { recipientDocument: _omit, ...withoutDoc } = req;
    const b = await h.provider.transfer(withoutDoc);
    expect(b.id).toBe(a.id);
  });

  it('answers 409 → PROVIDER_IDEMPOTENCY_CONFLICT when the same key carries another body', async () => {
    const req = transferRequest();
    await h.provider.transfer(req);
    const err = await h.provider.transfer({ ...req, amountCents: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ code: 'PROVIDER_IDEMPOTENCY_CONFLICT', transient: false, httpStatus: 409 });
    const stats = (await h.call('GET', '/sandbox/transfers')).json.references[req.reference];
    expect(stats).toEqual({ requests: 2, created: 1 });
  });

  it('finds by reference (null on 404) and by id', async () => {
    const req = transferRequest();
    expect(await h.provider.getTransferByReference(req.reference)).toBeNull();
    const transfer = await h.provider.transfer(req);
    expect(await h.provider.getTransferByReference(req.reference)).toEqual(transfer);
    const byId = await h.call('GET', `/v1/transfers/${transfer.id}`, undefined, { authorization: `Bearer ${API_KEY}` });
    expect(byId).toEqual({ status: 200, json: transfer });
    const missing = await h.call('GET', '/v1/transfers/sbx_tr_missing', undefined, {
      authorization: `Bearer ${API_KEY}`,
    });
    expect(missing.status).toBe(404);
  });

  it('validates the body and requires the Idempotency-Key', async () => {
    const err = await h.provider.transfer(transferRequest({ pixKeyType: 'IBAN' as never })).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'VALIDATION_ERROR', transient: false, httpStatus: 400 });
    const noKey = await h.call('POST', '/v1/transfers', transferRequest(), { authorization: `Bearer ${API_KEY}` });
    expect(noKey.status).toBe(400);
    expect(noKey.json.error.code).toBe('IDEMPOTENCY_KEY_REQUIRED');
  });
});

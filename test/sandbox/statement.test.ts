/**
 * The sandbox's statement (GET /v1/statements) through HttpPixProvider.getStatement, and the
 * reconciliation test controls: a payment whose callback is lost, an amount the statement alters.
 */
import { chargeRequest, startReceiver, startSandbox, transferRequest, type SandboxHarness } from './harness';

let h: SandboxHarness;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeEach(async () => {
  h = await startSandbox();
  receiver = await startReceiver();
});

afterEach(async () => {
  await h.close();
  await receiver.close();
});

const around = () => ({
  from: new Date(Date.now() - 60_000).toISOString(),
  to: new Date(Date.now() + 60_000).toISOString(),
});

it('lists the charges paid, transfers and returns in [from, to), with amounts and endToEndIds', async () => {
  const paid = await h.provider.issueCharge(
    chargeRequest({ reference: 'ref-paid', amountCents: 1_500, callbackUrl: receiver.callbackUrl }),
  );
  await h.provider.issueCharge(chargeRequest({ reference: 'ref-unpaid', callbackUrl: receiver.callbackUrl }));
  const pay = await h.call('POST', `/sandbox/charges/${paid.id}/pay`, {});
  expect(pay.status).toBe(200);
  const transfer = await h.provider.transfer(transferRequest({ reference: 'tr-1', amountCents: 700 }));
  const ret = await h.provider.returnPayment({ reference: 'rf-1', amountCents: 500, endToEndId: pay.json.endToEndId });

  const statement = await h.provider.getStatement(around());
  expect(statement.payments).toEqual([
    {
      providerChargeId: paid.id,
      reference: 'ref-paid',
      amountCents: 1_500,
      endToEndId: pay.json.endToEndId,
      paidAt: pay.json.paidAt,
    },
  ]);
  expect(statement.transfers).toEqual(
    expect.arrayContaining([
      expect.objectContaining({
        id: transfer.id,
        reference: 'tr-1',
        kind: 'TRANSFER',
        status: 'COMPLETED',
        amountCents: 700,
        returnOf: null,
      }),
      expect.objectContaining({
        id: ret.id,
        reference: 'rf-1',
        kind: 'RETURN',
        status: 'COMPLETED',
        amountCents: 500,
        returnOf: pay.json.endToEndId,
      }),
    ]),
  );
  // Outside the range: nothing.
  const later = await h.provider.getStatement({
    from: new Date(Date.now() + 60_000).toISOString(),
    to: new Date(Date.now() + 120_000).toISOString(),
  });
  expect(later).toMatchObject({ payments: [], transfers: [] });
});

it('pay {callback: false} pays without a callback; statement-amount alters what the statement reports', async () => {
  const charge = await h.provider.issueCharge(
    chargeRequest({ reference: 'ref-lost', amountCents: 2_000, callbackUrl: receiver.callbackUrl }),
  );
  expect((await h.call('POST', `/sandbox/charges/${charge.id}/pay`, { callback: false })).status).toBe(200);
  await new Promise((r) => setTimeout(r, 200));
  expect(receiver.received).toHaveLength(0);
  expect(h.sandbox.state.callbacks).toHaveLength(0);
  expect((await h.provider.getCharge(charge.id)).status).toBe('PAID');

  expect((await h.call('POST', '/sandbox/charges/ref-lost/statement-amount', { amountCents: 2_100 })).status).toBe(200);
  const statement = await h.provider.getStatement(around());
  expect(statement.payments).toEqual([expect.objectContaining({ reference: 'ref-lost', amountCents: 2_100 })]);
  expect((await h.provider.getCharge(charge.id)).amountCents).toBe(2_000);
});

it('a bad range is 400 VALIDATION_ERROR, and the statement needs the API key', async () => {
  const bad = await h.call('GET', '/v1/statements?from=yesterday&to=today', undefined, {
    authorization: 'Bearer sbx_test_api_key',
  });
  expect([bad.status, bad.json.error.code]).toEqual([400, 'VALIDATION_ERROR']);
  const { from, to } = around();
  const reversed = await h.call(
    'GET',
    `/v1/statements?from=${encodeURIComponent(to)}&to=${encodeURIComponent(from)}`,
    undefined,
    { authorization: 'Bearer sbx_test_api_key' },
  );
  expect(reversed.status).toBe(400);
  expect(
    (await h.call('GET', `/v1/statements?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`)).status,
  ).toBe(401);
});

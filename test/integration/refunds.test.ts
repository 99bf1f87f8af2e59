/**
 * Refunds over HTTP against the real stack: a devolução at the sandbox provider (over HTTP) for
 * a paid Pix charge, full and partial, refused beyond the paid amount or the balance, released
 * when the provider refuses, behind the second factor when it is on. The ledger invariant holds
 * after every scenario, and the provider's own record shows one return per refund.
 */
import crypto from 'node:crypto';
import { authenticator } from 'otplib';
import { writeLedgerEntry } from '../../activities/ledger/ledgerWriter';
import { accounts } from '../../core/ledger/accounts';
import { movements, reserve } from '../../core/ledger/postings';
import { OutboxEvent, Refund } from '../../db/models';
import { setWithdrawalsFrozen } from '../../db/identity/merchantAdmin';
import type { AppClient } from '../support/appClient';
import { waitFor } from '../support/env';
import { sharedIntegrationStack, type SharedStack } from '../support/sharedStack';
import { assertLedgerInvariant, balance } from '../support/ledger';
import { checkRecordedEvents } from '../support/webhookEvents';
import { sandboxTransferList, sandboxTransfers, setFaults } from '../support/payouts';
import { signedInMerchant } from '../support/signedIn';

jest.setTimeout(120_000);

let stack: SharedStack;

beforeAll(async () => {
  stack = await sharedIntegrationStack();
});

afterAll(async () => {
  await stack?.stop();
});

afterEach(async () => {
  await assertLedgerInvariant(stack.sequelize);
});

const key = () => ({ 'x-idempotency-key': `refund-${crypto.randomUUID()}` });
const available = (merchantId: string) => balance(stack.sequelize, accounts.merchantAvailable(merchantId));
const reserved = (merchantId: string) => balance(stack.sequelize, accounts.merchantReserved(merchantId));
const fees = () => balance(stack.sequelize, accounts.platformFees);

/** An owner with a PAID Pix charge of `amountCents` (1% fee on the test stack). */
async function paidCharge(amountCents: number): Promise<{ client: AppClient; merchantId: string; chargeId: string }> {
  const { client, merchantId } = await signedInMerchant(stack, { emailPrefix: 'refund', name: 'Loja Reembolso' });
  const created = await client.call('POST', '/charges', { body: { merchantId, amountCents }, headers: key() });
  expect(created.status).toBe(201);
  await stack.pay(created.body.id);
  await waitFor(
    async () => (await client.call('GET', `/charges/${created.body.id}`)).body.status === 'PAID',
    'charge PAID',
  );
  return { client, merchantId, chargeId: created.body.id };
}

async function refundSettled(client: AppClient, chargeId: string, refundId: string) {
  return waitFor(async () => {
    const charge = (await client.call('GET', `/charges/${chargeId}`)).body;
    const refund = charge.refunds.find((r: { id: string }) => r.id === refundId);
    return refund && refund.status !== 'PROCESSING' ? { charge, refund } : undefined;
  }, `refund ${refundId} settled`);
}

it('a full refund returns the payment to the payer: owner net and platform fee given back, one return at the provider, charge.refunded recorded', async () => {
  const { client, merchantId, chargeId } = await paidCharge(10_000);
  expect(await available(merchantId)).toBe(9_900);
  const feesBefore = await fees();
  const res = await client.call('POST', `/charges/${chargeId}/refund`, {
    body: { reason: 'produto devolvido' },
    headers: key(),
  });
  expect(res.status).toBe(200);
  expect(res.body.refunds).toEqual([
    expect.objectContaining({
      amountCents: 10_000,
      reason: 'produto devolvido',
      status: expect.stringMatching(/PROCESSING|SUCCEEDED/),
    }),
  ]);
  const { charge, refund } = await refundSettled(client, chargeId, res.body.refunds[0].id);
  expect(refund).toMatchObject({ status: 'SUCCEEDED', endToEndId: expect.any(String), settledAt: expect.any(String) });
  expect(charge).toMatchObject({ status: 'PAID', refundedAmountCents: 10_000 });
  expect(await available(merchantId)).toBe(0);
  expect(await reserved(merchantId)).toBe(0);
  expect(await fees()).toBe(feesBefore - 100);
  const provider = await sandboxTransfers(stack);
  expect(provider[refund.id]).toMatchObject({ created: 1 });
  const event = await OutboxEvent.findOne({ where: { dedupKey: `charge.refunded:${refund.id}` } });
  expect(event?.payload).toMatchObject({
    chargeId,
    refundId: refund.id,
    amountCents: 10_000,
    refundedAmountCents: 10_000,
    remainingAmountCents: 0,
  });
  // Nothing left to refund.
  const again = await client.call('POST', `/charges/${chargeId}/refund`, {
    body: { reason: 'de novo' },
    headers: key(),
  });
  expect(again.status).toBe(409);
  expect(again.body.error.code).toBe('REFUND_EXCEEDS_PAID_AMOUNT');
});

it('two partial refunds, then an over-refund is refused; a replayed request refunds once', async () => {
  const { client, merchantId, chargeId } = await paidCharge(10_000);
  const headers = key();
  const first = await client.call('POST', `/charges/${chargeId}/refund`, {
    body: { amountCents: 3_000, reason: 'parcial 1' },
    headers,
  });
  expect(first.status).toBe(200);
  const replay = await client.call('POST', `/charges/${chargeId}/refund`, {
    body: { amountCents: 3_000, reason: 'parcial 1' },
    headers,
  });
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  const second = await client.call('POST', `/charges/${chargeId}/refund`, {
    body: { amountCents: 2_000, reason: 'parcial 2' },
    headers: key(),
  });
  expect(second.status).toBe(200);
  expect(await Refund.count({ where: { chargeId } })).toBe(2);
  const over = await client.call('POST', `/charges/${chargeId}/refund`, {
    body: { amountCents: 5_001, reason: 'demais' },
    headers: key(),
  });
  expect(over.status).toBe(409);
  expect(over.body.error).toMatchObject({ code: 'REFUND_EXCEEDS_PAID_AMOUNT', details: { refundableCents: 5_000 } });
  for (const r of second.body.refunds) await refundSettled(client, chargeId, r.id);
  const charge = (await client.call('GET', `/charges/${chargeId}`)).body;
  expect(charge.refundedAmountCents).toBe(5_000);
  expect(charge.refunds.map((r: { status: string }) => r.status)).toEqual(['SUCCEEDED', 'SUCCEEDED']);
  // The owner gave back its net share of 5,000 (4,950); the fee share (50) came from the platform.
  expect(await available(merchantId)).toBe(9_900 - 4_950);
  expect(await reserved(merchantId)).toBe(0);
});

it('the provider made the return but its answer was lost: the retry asks the provider and settles once, never releasing', async () => {
  const { client, merchantId, chargeId } = await paidCharge(10_000);
  await setFaults(stack, { timeoutRate: 1 }); // processed, answer swallowed
  const res = await client.call('POST', `/charges/${chargeId}/refund`, {
    body: { amountCents: 4_000, reason: 'resposta perdida' },
    headers: key(),
  });
  expect(res.status).toBe(200);
  const refundId = res.body.refunds[0].id as string;
  const madeAtProvider = async () => (await sandboxTransferList(stack)).filter((t) => t.reference === refundId);
  await waitFor(
    async () => (await madeAtProvider()).length === 1,
    'the sandbox to make the return and lose the answer',
    90_000,
  );
  await setFaults(stack, null);
  const { refund } = await refundSettled(client, chargeId, refundId);
  expect(refund.status).toBe('SUCCEEDED');
  expect(await madeAtProvider()).toHaveLength(1);
  expect(await reserved(merchantId)).toBe(0);
  expect(await available(merchantId)).toBe(9_900 - 3_960);
});

it('is refused with 409 when the available balance does not cover the shares; nothing is reserved or stored', async () => {
  const { client, merchantId, chargeId } = await paidCharge(10_000);
  // Most of the money is on its way out already (a withdrawal holds it).
  await stack.sequelize.transaction((t) =>
    writeLedgerEntry(
      stack.sequelize,
      reserve(movements.withdrawal(crypto.randomUUID()).reserve, [{ merchantId, cents: 9_000 }]),
      t,
    ),
  );
  const res = await client.call('POST', `/charges/${chargeId}/refund`, {
    body: { amountCents: 5_000, reason: 'sem saldo' },
    headers: key(),
  });
  expect(res.status).toBe(409);
  expect(res.body.error).toMatchObject({ code: 'INSUFFICIENT_BALANCE_FOR_REFUND', details: { merchantId } });
  expect(await Refund.count({ where: { chargeId } })).toBe(0);
  expect(await available(merchantId)).toBe(900);
  expect(await reserved(merchantId)).toBe(9_000);
});

it('a refusal by the provider releases the reserved shares; the refund is FAILED in our words', async () => {
  const { client, merchantId, chargeId } = await paidCharge(10_000);
  const res = await client.call('POST', `/charges/${chargeId}/refund`, {
    body: { amountCents: 1_013, reason: 'recusado' },
    headers: key(),
  });
  expect(res.status).toBe(200);
  const { charge, refund } = await refundSettled(client, chargeId, res.body.refunds[0].id);
  expect(refund).toMatchObject({ status: 'FAILED', failureCode: 'RETURN_REFUSED' });
  expect(charge.refundedAmountCents).toBe(0);
  expect(await available(merchantId)).toBe(9_900);
  expect(await reserved(merchantId)).toBe(0);
  // What failed does not count: the whole amount can still be refunded.
  const full = await client.call('POST', `/charges/${chargeId}/refund`, {
    body: { reason: 'agora sim' },
    headers: key(),
  });
  expect(full.body.refunds[1]).toMatchObject({ amountCents: 10_000 });
  await refundSettled(client, chargeId, full.body.refunds[1].id);
});

it('needs an action token when the user has a second factor; refuses unpaid and foreign charges', async () => {
  const { client, chargeId, merchantId } = await paidCharge(2_000);
  const setup = await client.call('POST', '/auth/2fa/totp/setup');
  await client.call('POST', '/auth/2fa/totp/confirm', { body: { code: authenticator.generate(setup.body.secret) } });
  const without = await client.call('POST', `/charges/${chargeId}/refund`, {
    body: { reason: 'sem 2FA' },
    headers: key(),
  });
  expect(without.status).toBe(403);
  expect(without.body.error).toMatchObject({ code: 'SECOND_FACTOR_REQUIRED', details: { action: 'refund' } });
  expect(await Refund.count({ where: { chargeId } })).toBe(0);
  const start = await client.call('POST', '/auth/2fa/action/start', { body: { action: 'refund' } });
  // The next time step: the confirm above used this one.
  const code = authenticator
    .clone({ epoch: (Math.floor(Date.now() / 30_000) + 1) * 30_000 })
    .generate(setup.body.secret);
  const token = await client.call('POST', '/auth/2fa/action/confirm', {
    body: { challengeId: start.body.challengeId, code },
  });
  expect(token.status).toBe(200);
  const ok = await client.call('POST', `/charges/${chargeId}/refund`, {
    body: { reason: 'com 2FA' },
    headers: { ...key(), 'x-action-token': token.body.actionToken },
  });
  expect(ok.status).toBe(200);
  await refundSettled(client, chargeId, ok.body.refunds[0].id);

  const pending = await client.call('POST', '/charges', { body: { merchantId, amountCents: 500 }, headers: key() });
  const notPaid = await client.call('POST', `/charges/${pending.body.id}/refund`, {
    body: { reason: 'não paga' },
    headers: key(),
  });
  expect(notPaid.status).toBe(409);
  expect(notPaid.body.error.code).toBe('CHARGE_NOT_REFUNDABLE');

  const stranger = await paidCharge(1_000);
  const foreign = await stranger.client.call('POST', `/charges/${chargeId}/refund`, {
    body: { reason: 'alheia' },
    headers: key(),
  });
  expect(foreign.status).toBe(404);
  expect(foreign.body.error.code).toBe('CHARGE_NOT_FOUND');
});

it('a boleto paid short by barcode is refunded by Pix to the key given, up to what was paid; a Pix charge takes no destination', async () => {
  const { client, merchantId } = await paidCharge(1_000); // the owner and its merchant
  const created = await client.call('POST', '/charges', {
    body: { merchantId, amountCents: 10_000, method: 'BOLETO', payer: { name: 'Bia Souza', taxId: '529.982.247-25' } },
    headers: key(),
  });
  expect(created.status).toBe(201);
  const pay = await fetch(`${stack.sandboxUrl}/sandbox/boletos/${created.body.id}/pay`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ amountCents: 8_000 }),
  });
  expect(pay.status).toBe(200);
  await waitFor(
    async () => (await client.call('GET', `/charges/${created.body.id}`)).body.status === 'PAID',
    'boleto PAID',
  );
  const availableBefore = await available(merchantId);

  const noKey = await client.call('POST', `/charges/${created.body.id}/refund`, {
    body: { reason: 'sem chave' },
    headers: key(),
  });
  expect(noKey.status).toBe(400);
  expect(noKey.body.error.details.fields[0].field).toBe('destination');
  const badKey = await client.call('POST', `/charges/${created.body.id}/refund`, {
    body: { reason: 'chave ruim', destination: { pixKeyType: 'CPF', pixKey: '123', name: 'Bia Souza' } },
    headers: key(),
  });
  expect(badKey.status).toBe(400);
  // The payer's own key, as the provider's directory (DICT) knows it.
  await registerDictKey({
    key: 'bia@example.com',
    keyType: 'EMAIL',
    ownerName: 'Bia Souza',
    ownerDocument: '52998224725',
  });
  const tooMuch = await client.call('POST', `/charges/${created.body.id}/refund`, {
    body: {
      amountCents: 8_001,
      reason: 'demais',
      destination: { pixKeyType: 'EMAIL', pixKey: 'bia@example.com', name: 'Bia Souza' },
    },
    headers: key(),
  });
  expect(tooMuch.status).toBe(409);
  expect(tooMuch.body.error).toMatchObject({ code: 'REFUND_EXCEEDS_PAID_AMOUNT', details: { refundableCents: 8_000 } });

  const res = await client.call('POST', `/charges/${created.body.id}/refund`, {
    body: {
      reason: 'devolução do boleto',
      destination: { pixKeyType: 'EMAIL', pixKey: 'Bia@Example.com', name: 'Bia Souza', document: '529.982.247-25' },
    },
    headers: key(),
  });
  expect(res.status).toBe(200);
  const { refund, charge } = await refundSettled(client, created.body.id, res.body.refunds[0].id);
  expect(refund).toMatchObject({ status: 'SUCCEEDED', amountCents: 8_000 });
  expect(charge.refundedAmountCents).toBe(8_000);
  const sent = (await sandboxTransferList(stack)).filter((t) => t.reference === refund.id);
  expect(sent).toEqual([
    expect.objectContaining({
      pixKey: 'bia@example.com',
      pixKeyType: 'EMAIL',
      amountCents: 8_000,
      status: 'COMPLETED',
    }),
  ]);
  expect(await reserved(merchantId)).toBe(0);
  // The owner gave back its net of the 8,000 paid (the fee taken on the paid amount came back from the platform).
  expect(await available(merchantId)).toBeLessThan(availableBefore);

  const pix = await paidCharge(500);
  const withKey = await pix.client.call('POST', `/charges/${pix.chargeId}/refund`, {
    body: { reason: 'x', destination: { pixKeyType: 'EMAIL', pixKey: 'a@b.com', name: 'Ana Lima' } },
    headers: key(),
  });
  expect(withKey.status).toBe(400);
});

it('a charge with a split (made on the seller API) is refunded from everyone it credited, in proportion', async () => {
  const { client, merchantId } = await paidCharge(1_000);
  const credential = await client.call('POST', '/dashboard/credentials', {
    body: { merchantId, name: 'seller', scopes: ['charges:write'] },
  });
  const creds = { merchantId, clientId: credential.body.clientId, clientSecret: credential.body.clientSecret };
  const partner = await stack.createMerchant({ name: 'Parceiro' });
  const created = await stack.api('POST', '/sellers/pix', {
    creds,
    body: { amountCents: 10_000, splits: [{ merchantId: partner.merchantId, amountCents: 3_000 }] },
  });
  expect(created.status).toBe(201);
  await stack.pay(created.body.id);
  await waitFor(
    async () => (await client.call('GET', `/charges/${created.body.id}`)).body.status === 'PAID',
    'charge PAID',
  );
  const ownerBefore = await available(merchantId);
  const partnerBefore = await available(partner.merchantId);
  const feesBefore = await fees();

  const res = await client.call('POST', `/charges/${created.body.id}/refund`, {
    body: { amountCents: 5_000, reason: 'metade' },
    headers: key(),
  });
  expect(res.status).toBe(200);
  await refundSettled(client, created.body.id, res.body.refunds[0].id);
  // Half of what each received: partner 1,500 of 3,000; platform 50 of 100; owner 3,450 of 6,900.
  expect(await available(partner.merchantId)).toBe(partnerBefore - 1_500);
  expect(await fees()).toBe(feesBefore - 50);
  expect(await available(merchantId)).toBe(ownerBefore - 3_450);
  expect(await reserved(partner.merchantId)).toBe(0);

  // The partner has spent its share meanwhile: the rest cannot be taken back, nothing moves.
  await stack.sequelize.transaction((t) =>
    writeLedgerEntry(
      stack.sequelize,
      reserve(movements.withdrawal(crypto.randomUUID()).reserve, [{ merchantId: partner.merchantId, cents: 1_500 }]),
      t,
    ),
  );
  const rest = await client.call('POST', `/charges/${created.body.id}/refund`, {
    body: { reason: 'o resto' },
    headers: key(),
  });
  expect(rest.status).toBe(409);
  expect(rest.body.error).toMatchObject({
    code: 'INSUFFICIENT_BALANCE_FOR_REFUND',
    details: { merchantId: partner.merchantId },
  });
  expect(await available(merchantId)).toBe(ownerBefore - 3_450);
});

/** The provider's Pix directory (DICT) learns who owns a key (a sandbox control). */
async function registerDictKey(entry: { key: string; keyType: string; ownerName: string; ownerDocument: string }) {
  const res = await fetch(`${stack.sandboxUrl}/sandbox/dict/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(entry),
  });
  expect(res.status).toBe(201);
}

/** A BOLETO charge of Bia Souza (CPF 529.982.247-25), paid by barcode. */
async function paidBoleto(client: AppClient, merchantId: string, amountCents: number): Promise<string> {
  const created = await client.call('POST', '/charges', {
    body: { merchantId, amountCents, method: 'BOLETO', payer: { name: 'Bia Souza', taxId: '529.982.247-25' } },
    headers: key(),
  });
  expect(created.status).toBe(201);
  const pay = await fetch(`${stack.sandboxUrl}/sandbox/boletos/${created.body.id}/pay`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  expect(pay.status).toBe(200);
  await waitFor(
    async () => (await client.call('GET', `/charges/${created.body.id}`)).body.status === 'PAID',
    'boleto PAID',
  );
  return created.body.id;
}

/**
 * Transfers to this key at the sandbox (devoluções, which go to the payer the provider knows, left
 * out); only those of this charge's refunds when given (other files share the sandbox).
 */
async function sentTo(pixKey: string, chargeId?: string) {
  const ours = chargeId ? new Set((await Refund.findAll({ where: { chargeId } })).map((r) => r.id)) : null;
  return (await sandboxTransferList(stack)).filter(
    (t) => t.pixKey === pixKey && !t.returnOf && (!ours || ours.has(t.reference)),
  );
}

/** Review 2, N1: what `gateway merchant freeze` writes, plus deactivation. */
async function setMerchantState(merchantId: string, state: { frozen: boolean; active: boolean }) {
  await setWithdrawalsFrozen(stack.sequelize, merchantId, state.frozen);
  await stack.sequelize.query(`UPDATE merchants SET active = :active WHERE id = :id`, {
    replacements: { id: merchantId, active: state.active },
  });
}

it('a frozen or inactive merchant refunds nothing, Pix or boleto: 409 before the second factor is spent, nothing reserved or sent', async () => {
  const { client, merchantId, chargeId } = await paidCharge(5_000);
  const boletoId = await paidBoleto(client, merchantId, 10_000);
  const mule = { pixKeyType: 'EMAIL', pixKey: 'mule@attacker.example', name: 'Someone Else' };
  await registerDictKey({
    key: 'mule@attacker.example',
    keyType: 'EMAIL',
    ownerName: 'Someone Else',
    ownerDocument: '11144477735',
  });
  // A second factor is on: the action token must survive the refusals.
  const setup = await client.call('POST', '/auth/2fa/totp/setup');
  await client.call('POST', '/auth/2fa/totp/confirm', { body: { code: authenticator.generate(setup.body.secret) } });
  const start = await client.call('POST', '/auth/2fa/action/start', { body: { action: 'refund' } });
  const code = authenticator
    .clone({ epoch: (Math.floor(Date.now() / 30_000) + 1) * 30_000 })
    .generate(setup.body.secret);
  const token = await client.call('POST', '/auth/2fa/action/confirm', {
    body: { challengeId: start.body.challengeId, code },
  });
  expect(token.status).toBe(200);
  const withToken = () => ({ ...key(), 'x-action-token': token.body.actionToken });
  const availableBefore = await available(merchantId);

  // The review's reproduction: frozen and inactive, a boleto refund to someone else's key.
  await setMerchantState(merchantId, { frozen: true, active: false });
  const repro = await client.call('POST', `/charges/${boletoId}/refund`, {
    body: { reason: 'x', destination: mule },
    headers: withToken(),
  });
  expect(repro.status).toBe(409);
  expect(repro.body.error.code).toBe('MERCHANT_INACTIVE');
  await setMerchantState(merchantId, { frozen: true, active: true });
  for (const [id, destination] of [
    [boletoId, { pixKeyType: 'CPF', pixKey: '529.982.247-25', name: 'Bia Souza' }],
    [chargeId, undefined],
  ] as const) {
    const frozen = await client.call('POST', `/charges/${id}/refund`, {
      body: { reason: 'congelada', ...(destination ? { destination } : {}) },
      headers: withToken(),
    });
    expect(frozen.status).toBe(409);
    expect(frozen.body.error.code).toBe('WITHDRAWAL_FROZEN');
  }
  await setMerchantState(merchantId, { frozen: false, active: false });
  const inactive = await client.call('POST', `/charges/${chargeId}/refund`, {
    body: { reason: 'inativa' },
    headers: withToken(),
  });
  expect(inactive.status).toBe(409);
  expect(inactive.body.error.code).toBe('MERCHANT_INACTIVE');

  expect(await Refund.count({ where: { merchantId } })).toBe(0);
  expect(await sentTo('mule@attacker.example')).toEqual([]);
  expect(await available(merchantId)).toBe(availableBefore);
  expect(await reserved(merchantId)).toBe(0);

  // Active and unfrozen again: the same, unspent token refunds the Pix charge.
  await setMerchantState(merchantId, { frozen: false, active: true });
  const ok = await client.call('POST', `/charges/${chargeId}/refund`, {
    body: { reason: 'liberada' },
    headers: withToken(),
  });
  expect(ok.status).toBe(200);
  expect((await refundSettled(client, chargeId, ok.body.refunds[0].id)).refund.status).toBe('SUCCEEDED');
});

it("a boleto is refunded only to a Pix key of its payer: what the key's form tells at once, the rest by the PSP's document check at send (Efí has no directory look-up)", async () => {
  const { client, merchantId } = await paidCharge(1_000);
  const boletoId = await paidBoleto(client, merchantId, 10_000);
  // The PSP's directory knows these keys: Efí checks the document the send names against it.
  await registerDictKey({
    key: 'mule@attacker.example',
    keyType: 'EMAIL',
    ownerName: 'Someone Else',
    ownerDocument: '11144477735',
  });
  await registerDictKey({
    key: 'bia.souza@example.com',
    keyType: 'EMAIL',
    ownerName: 'Bia Souza',
    ownerDocument: '52998224725',
  });
  const refundTo = (destination: Record<string, string>, amountCents = 1_000) =>
    client.call('POST', `/charges/${boletoId}/refund`, {
      body: { amountCents, reason: 'devolução', destination },
      headers: key(),
    });
  const availableBefore = await available(merchantId);

  // Another CPF as key, another document named: 422 at once, nothing stored.
  const otherCpf = await refundTo({ pixKeyType: 'CPF', pixKey: '111.444.777-35', name: 'Bia Souza' });
  expect(otherCpf.status).toBe(422);
  expect(otherCpf.body.error.code).toBe('REFUND_DESTINATION_NOT_PAYER');
  const otherDocument = await refundTo({
    pixKeyType: 'EMAIL',
    pixKey: 'bia.souza@example.com',
    name: 'Bia Souza',
    document: '111.444.777-35',
  });
  expect(otherDocument.status).toBe(422);
  expect(otherDocument.body.error.code).toBe('REFUND_DESTINATION_NOT_PAYER');
  expect(await Refund.count({ where: { chargeId: boletoId } })).toBe(0);

  // Another person's e-mail key: the send names the payer's CPF, Efí refuses it
  // (chave_nao_pertence_ao_documento): FAILED with our code, nothing sent, the money back.
  const mule = await refundTo({ pixKeyType: 'EMAIL', pixKey: 'mule@attacker.example', name: 'Bia Souza' });
  expect(mule.status).toBe(200);
  const refused = await refundSettled(client, boletoId, mule.body.refunds[0].id);
  expect(refused.refund).toMatchObject({ status: 'FAILED', failureCode: 'RECIPIENT_DOCUMENT_MISMATCH' });
  expect(await sentTo('mule@attacker.example')).toEqual([]);
  expect(await reserved(merchantId)).toBe(0);
  expect(await available(merchantId)).toBe(availableBefore);

  // The payer's own keys: an e-mail of her CPF, and the CPF itself.
  const own = await refundTo({ pixKeyType: 'EMAIL', pixKey: 'bia.souza@example.com', name: 'Bia Souza' });
  expect(own.status).toBe(200);
  const byCpf = await refundTo({ pixKeyType: 'CPF', pixKey: '529.982.247-25', name: 'Bia Souza' }, 2_000);
  expect(byCpf.status).toBe(200);
  // The answer lists every refund of the charge: the two new ones succeed.
  const muleId = mule.body.refunds[0].id;
  const ours = byCpf.body.refunds.filter((r: { id: string }) => r.id !== muleId);
  expect(ours).toHaveLength(2);
  for (const r of ours) expect((await refundSettled(client, boletoId, r.id)).refund.status).toBe('SUCCEEDED');
  expect(await sentTo('bia.souza@example.com', boletoId)).toEqual([
    expect.objectContaining({ amountCents: 1_000, status: 'COMPLETED' }),
  ]);
  expect(await sentTo('52998224725', boletoId)).toEqual([
    expect.objectContaining({ amountCents: 2_000, status: 'COMPLETED' }),
  ]);
  const stored = await Refund.findAll({ where: { chargeId: boletoId } });
  expect(stored.map((r) => r.destination)).toEqual(
    expect.arrayContaining([expect.objectContaining({ pixKey: 'bia.souza@example.com', document: '52998224725' })]),
  );
  expect(await reserved(merchantId)).toBe(0);
});

// Last: every event this file's flows recorded (and any other on this stack) against the API document.
it('records only events whose body matches the payload schema the API document gives their type', async () => {
  const { types, mismatches } = await checkRecordedEvents(stack.sequelize);
  expect(mismatches).toEqual([]);
  expect(types).toEqual(expect.arrayContaining(['charge.refunded']));
});

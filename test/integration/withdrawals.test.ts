/**
 * Withdrawals (saques) over HTTP against the real stack: PostgreSQL, the Temporal dev server, a
 * worker and the sandbox provider over HTTP. Merchants get their balance the real way: a Pix
 * charge created through the API and paid by the sandbox payer.
 */
import crypto from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { accounts } from '../../core/ledger/accounts';
import { setWithdrawalsFrozen, type MerchantCredentials, type NewMerchant } from '../../db/identity/merchantAdmin';
import { IdempotencyRecord, Withdrawal } from '../../db/models';
import { withdrawalResponse } from '../../api/withdrawals/openapi';
import { sharedIntegrationStack, type SharedStack } from '../support/sharedStack';
import { assertLedgerInvariant, balance } from '../support/ledger';
import { checkRecordedEvents } from '../support/webhookEvents';
import { waitFor } from '../support/env';
import { sandboxTransfers } from '../support/payouts';

jest.setTimeout(120_000);

const FEE = 150;
const SPEC_FIELDS = [
  'id',
  'amountCents',
  'status',
  'createdAt',
  'processedAt',
  'userId',
  'feeCents',
  'totalDebitedCents',
  'provider',
  'providerTransferId',
  'providerEndToEndId',
  'partnerTxId',
  'failureReason',
  'idempotencyKey',
  'payer',
  'sourceAccount',
  'beneficiary',
  'tracking',
].sort();

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

const key = () => `saque-${crypto.randomUUID()}`;

function merchant(input: Partial<NewMerchant> = {}): Promise<MerchantCredentials> {
  return stack.createMerchant({
    name: 'Loja Saque',
    document: '11144477735',
    pixKey: `financeiro+${crypto.randomUUID().slice(0, 8)}@loja-saque.com.br`,
    pixKeyType: 'EMAIL',
    withdrawalFeeCents: FEE,
    ...input,
  });
}

/** Pays a Pix charge to the merchant through the API and the sandbox; returns the net credited. */
async function fund(creds: MerchantCredentials, amountCents: number): Promise<number> {
  const created = await stack.api('POST', '/sellers/pix', {
    creds,
    body: { amountCents },
    headers: { 'x-idempotency-key': key() },
  });
  expect(created.status).toBe(201);
  expect((await stack.pay(created.body.id)).status).toBe(200);
  await waitFor(
    async () => (await stack.api('GET', `/sellers/pix/${created.body.id}`, { creds })).body?.status === 'PAID',
    'the charge to be paid',
  );
  return amountCents - Math.floor((amountCents * 100 + 5_000) / 10_000); // the stack's 1% fee
}

function withdraw(creds: MerchantCredentials, body: unknown, idem: string | null = key(), prefix = '/sellers') {
  return stack.api('POST', `${prefix}/saques`, { creds, body, headers: idem ? { 'x-idempotency-key': idem } : {} });
}

async function waitForStatus(creds: MerchantCredentials, id: string, status: string) {
  return waitFor(async () => {
    const res = await stack.api('GET', `/sellers/saques/${id}`, { creds });
    return res.body?.status === status ? res.body : null;
  }, `withdrawal ${id} to become ${status}`);
}

const available = (creds: MerchantCredentials) =>
  balance(stack.sequelize, accounts.merchantAvailable(creds.merchantId));
const reserved = (creds: MerchantCredentials) => balance(stack.sequelize, accounts.merchantReserved(creds.merchantId));

async function postingsOf(movementKey: string): Promise<Record<string, number>> {
  const rows = await stack.sequelize.query<{ code: string; amount: string }>(
    `SELECT a.code, p.amount_cents AS amount FROM ledger_postings p
     JOIN ledger_accounts a ON a.id = p.account_id JOIN ledger_transactions t ON t.id = p.transaction_id
     WHERE t.movement_key = :movementKey`,
    { replacements: { movementKey }, type: QueryTypes.SELECT },
  );
  return Object.fromEntries(rows.map((r) => [r.code, Number(r.amount)]));
}

describe('a withdrawal from request to completion', () => {
  it('reserves at once, completes through the provider, and moves the ledger exactly', async () => {
    const seller = await merchant();
    const net = await fund(seller, 100_000);
    expect(await available(seller)).toBe(net);

    const idem = key();
    const res = await withdraw(seller, { amountCents: 50_000, description: 'Saque semanal' }, idem);
    expect(res.status).toBe(201);
    expect(['PROCESSING', 'COMPLETED']).toContain(res.body.status);
    expect(res.body).toMatchObject({
      amountCents: 50_000,
      feeCents: FEE,
      totalDebitedCents: 50_150,
      idempotencyKey: idem,
      userId: null,
      provider: 'PIX_GATEWAY',
    });
    // The 201 comes after the reservation: the money is already out of the available balance.
    expect(await available(seller)).toBe(net - 50_150);

    const done = await waitForStatus(seller, res.body.id, 'COMPLETED');
    expect(Object.keys(done).sort()).toEqual(SPEC_FIELDS);
    expect(() => withdrawalResponse.parse(done)).not.toThrow();
    expect(done.processedAt).toEqual(expect.any(String));
    expect(done.providerEndToEndId).toMatch(/^E\d{8}\d{12}[A-Za-z0-9]{11}$/);
    expect(done.providerTransferId).toMatch(/^ptr_[0-9a-f]{24}$/);
    expect(done.partnerTxId).toBe(res.body.id);
    expect(done.tracking).toEqual({ providerTransferId: done.providerTransferId, endToEndId: done.providerEndToEndId });
    expect(done.payer).toMatchObject({
      merchantId: seller.merchantId,
      name: 'Loja Saque',
      document: '11144477735',
      institution: 'Gateway Pagamentos IP',
    });
    expect(done.sourceAccount).toEqual({
      institution: 'Gateway Pagamentos IP',
      type: 'PAYMENT',
      holderName: 'Loja Saque',
      holderDocument: '11144477735',
      branch: '0001',
      account: seller.merchantId,
    });
    expect(done.beneficiary).toMatchObject({
      name: 'Loja Saque',
      document: '11144477735',
      documentMasked: '111******35',
      documentType: 'CPF',
      pixKeyType: 'EMAIL',
    });
    expect(done.beneficiary.pixKeyMasked).toMatch(/^fi\*+@loja-saque\.com\.br$/);
    // Never the supplier, a raw payload or a token.
    expect(JSON.stringify(done)).not.toMatch(/sandbox|sbx|secret|token|qrCode/i);

    expect(await available(seller)).toBe(net - 50_150);
    expect(await reserved(seller)).toBe(0);
    expect(await postingsOf(`withdrawal-reserve:${done.id}`)).toEqual({
      [accounts.merchantAvailable(seller.merchantId)]: -50_150,
      [accounts.merchantReserved(seller.merchantId)]: 50_150,
    });
    expect(await postingsOf(`withdrawal-complete:${done.id}`)).toEqual({
      [accounts.merchantReserved(seller.merchantId)]: -50_150,
      [accounts.providerClearing]: 50_000,
      [accounts.platformFees]: FEE,
    });
    expect(await postingsOf(`withdrawal-release:${done.id}`)).toEqual({});

    expect((await sandboxTransfers(stack))[done.id]?.created).toBe(1);
  });

  it('fails when the provider refuses the merchant Pix key, returning amount and fee', async () => {
    const seller = await merchant({ pixKey: 'invalid-key@loja.com.br' });
    const net = await fund(seller, 20_000);
    const res = await withdraw(seller, { amountCents: 10_000 });
    expect(res.status).toBe(201);
    await waitForStatus(seller, res.body.id, 'FAILED');
    // Released by Efí's record (NAO_REALIZADO, which carries no reason); the send's notice gives
    // the ISO 20022 reason (AC03), which makes the failure precise.
    const failed = await waitFor(async () => {
      const res2 = await stack.api('GET', `/sellers/saques/${res.body.id}`, { creds: seller });
      return /Pix key was not found/.test(res2.body?.failureReason ?? '') ? res2.body : null;
    }, 'the notice to name the reason');
    expect(failed.failureReason).toMatch(/Pix key was not found/);
    expect(failed.processedAt).toEqual(expect.any(String));
    expect(failed.providerEndToEndId).toBeNull();
    expect(JSON.stringify(failed)).not.toMatch(/sandbox|sbx/i);
    expect(await available(seller)).toBe(net);
    expect(await reserved(seller)).toBe(0);
    expect(await postingsOf(`withdrawal-release:${failed.id}`)).toEqual({
      [accounts.merchantReserved(seller.merchantId)]: -10_150,
      [accounts.merchantAvailable(seller.merchantId)]: 10_150,
    });
    expect(await postingsOf(`withdrawal-complete:${failed.id}`)).toEqual({});
  });
});

describe('refusals store nothing', () => {
  it('answers 400 INSUFFICIENT_AVAILABLE_BALANCE when amount + fee exceed the balance, and frees the key', async () => {
    const seller = await merchant();
    const net = await fund(seller, 10_000);
    const idem = key();
    const res = await withdraw(seller, { amountCents: net - FEE + 1 }, idem);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'INSUFFICIENT_AVAILABLE_BALANCE',
      details: { requiredCents: net + 1, availableCents: net },
    });
    expect(res.body.error.traceId).toEqual(expect.any(String));
    expect(await Withdrawal.count({ where: { merchantId: seller.merchantId } })).toBe(0);
    expect(await available(seller)).toBe(net);
    expect(await reserved(seller)).toBe(0);
    expect(await IdempotencyRecord.count({ where: { merchantId: seller.merchantId, key: idem } })).toBe(0);

    // Exactly the balance (amount + fee) is allowed.
    const exact = await withdraw(seller, { amountCents: net - FEE }, idem);
    expect(exact.status).toBe(201);
    await waitForStatus(seller, exact.body.id, 'COMPLETED');
    expect(await available(seller)).toBe(0);
  });

  it('lets only one of two concurrent withdrawals that together exceed the balance through', async () => {
    const seller = await merchant();
    const net = await fund(seller, 10_000);
    const amount = Math.floor(net * 0.6);
    const results = await Promise.all([
      withdraw(seller, { amountCents: amount }),
      withdraw(seller, { amountCents: amount }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 400]);
    expect(results.find((r) => r.status === 400)?.body.error.code).toBe('INSUFFICIENT_AVAILABLE_BALANCE');
    const ok = results.find((r) => r.status === 201)!;
    await waitForStatus(seller, ok.body.id, 'COMPLETED');
    expect(await Withdrawal.count({ where: { merchantId: seller.merchantId } })).toBe(1);
    expect(await available(seller)).toBe(net - amount - FEE);
    expect(await available(seller)).toBeGreaterThanOrEqual(0);
  });

  it('answers 409 WITHDRAWAL_FROZEN for a frozen merchant, and works again once unfrozen', async () => {
    const seller = await merchant();
    const net = await fund(seller, 5_000);
    await setWithdrawalsFrozen(stack.sequelize, seller.merchantId, true);
    const frozen = await withdraw(seller, { amountCents: 1_000 });
    expect(frozen.status).toBe(409);
    expect(frozen.body.error.code).toBe('WITHDRAWAL_FROZEN');
    expect(await Withdrawal.count({ where: { merchantId: seller.merchantId } })).toBe(0);
    expect(await available(seller)).toBe(net);

    await setWithdrawalsFrozen(stack.sequelize, seller.merchantId, false);
    const ok = await withdraw(seller, { amountCents: 1_000 });
    expect(ok.status).toBe(201);
    await waitForStatus(seller, ok.body.id, 'COMPLETED');
  });

  it('answers 400 VALIDATION_ERROR (reason PIX_KEY_NOT_REGISTERED) when the merchant has no Pix key', async () => {
    const seller = await merchant({ pixKey: undefined, pixKeyType: undefined });
    const res = await withdraw(seller, { amountCents: 1_000 });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { reason: 'PIX_KEY_NOT_REGISTERED' } });
    expect(await Withdrawal.count({ where: { merchantId: seller.merchantId } })).toBe(0);
  });

  it.each([
    ['an empty body', {}, 'amountCents'],
    ['a zero amount', { amountCents: 0 }, 'amountCents'],
    ['a negative amount', { amountCents: -5 }, 'amountCents'],
    ['a fractional amount', { amountCents: 10.5 }, 'amountCents'],
    ['an amount as text', { amountCents: '100' }, 'amountCents'],
    ['an unknown field', { amountCents: 100, pixKey: 'someone-else@x.com' }, ''],
    ['a long description', { amountCents: 100, description: 'x'.repeat(141) }, 'description'],
  ])('refuses %s with 400 VALIDATION_ERROR', async (_name, body, field) => {
    const seller = await merchant();
    const res = await withdraw(seller, body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    if (field) expect(res.body.error.details.fields.map((f: { field: string }) => f.field)).toContain(field);
    expect(await Withdrawal.count({ where: { merchantId: seller.merchantId } })).toBe(0);
  });

  it('refuses malformed JSON and a bad idempotency key in the envelope, never a 500', async () => {
    const seller = await merchant();
    const malformed = await stack.api('POST', '/sellers/saques', {
      creds: seller,
      rawBody: '{"amountCents": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('VALIDATION_ERROR');
    const badKey = await withdraw(seller, { amountCents: 100 }, 'has spaces in it');
    expect(badKey.status).toBe(400);
    expect(badKey.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('needs client credentials', async () => {
    const res = await stack.api('GET', '/sellers/saques');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('CREDENTIALS_REQUIRED');
  });
});

describe('idempotency of POST /sellers/saques', () => {
  it('replays the same withdrawal for the same key and body, and refuses another body', async () => {
    const seller = await merchant();
    await fund(seller, 10_000);
    const idem = key();
    const first = await withdraw(seller, { amountCents: 1_000 }, idem);
    const again = await withdraw(seller, { amountCents: 1_000 }, idem);
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const conflict = await withdraw(seller, { amountCents: 1_001 }, idem);
    expect(conflict.status).toBe(409);
    expect(conflict.body.error.code).toBe('DUPLICATE_IDEMPOTENCY_KEY');
    expect(await Withdrawal.count({ where: { merchantId: seller.merchantId } })).toBe(1);
    await waitForStatus(seller, first.body.id, 'COMPLETED');
  });

  it('makes one withdrawal, reserved once, from ten concurrent requests with one key', async () => {
    const seller = await merchant();
    const net = await fund(seller, 10_000);
    const idem = key();
    const results = await Promise.all(Array.from({ length: 10 }, () => withdraw(seller, { amountCents: 2_000 }, idem)));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(201));
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    expect(await Withdrawal.count({ where: { merchantId: seller.merchantId } })).toBe(1);
    await waitForStatus(seller, results[0].body.id, 'COMPLETED');
    expect(await available(seller)).toBe(net - 2_000 - FEE);
  });

  it('makes a new withdrawal for every request without a key', async () => {
    const seller = await merchant();
    await fund(seller, 10_000);
    const a = await withdraw(seller, { amountCents: 500 }, null);
    const b = await withdraw(seller, { amountCents: 500 }, null);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.id).not.toBe(b.body.id);
    expect(a.body.idempotencyKey).toBeNull();
    await waitForStatus(seller, a.body.id, 'COMPLETED');
    await waitForStatus(seller, b.body.id, 'COMPLETED');
  });
});

describe('reading withdrawals', () => {
  let seller: MerchantCredentials;
  let other: MerchantCredentials;
  const ids: string[] = [];

  beforeAll(async () => {
    seller = await merchant();
    other = await merchant({ name: 'Outra Loja' });
    await fund(seller, 20_000);
    await fund(other, 5_000);
    for (const amountCents of [1_000, 2_000, 3_000]) {
      const res = await withdraw(seller, { amountCents });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    const theirs = await withdraw(other, { amountCents: 1_000 });
    expect(theirs.status).toBe(201);
    for (const id of ids) await waitForStatus(seller, id, 'COMPLETED');
  });

  it("lists only the merchant's withdrawals, newest first, in pages", async () => {
    const page1 = await stack.api('GET', '/sellers/saques?limit=2', { creds: seller });
    expect(page1.status).toBe(200);
    expect(page1.body.withdrawals.map((w: { id: string }) => w.id)).toEqual([ids[2], ids[1]]);
    expect(page1.body.pagination).toEqual({ total: 3, limit: 2, offset: 0, hasMore: true });
    for (const w of page1.body.withdrawals) expect(() => withdrawalResponse.parse(w)).not.toThrow();
    const page2 = await stack.api('GET', '/sellers/saques?limit=2&offset=2', { creds: seller });
    expect(page2.body.withdrawals.map((w: { id: string }) => w.id)).toEqual([ids[0]]);
    expect(page2.body.pagination).toEqual({ total: 3, limit: 2, offset: 2, hasMore: false });
    const all = await stack.api('GET', '/sellers/saques', { creds: seller });
    expect(all.body.pagination).toEqual({ total: 3, limit: 20, offset: 0, hasMore: false });
    expect(
      all.body.withdrawals.every((w: { payer: { merchantId: string } }) => w.payer.merchantId === seller.merchantId),
    ).toBe(true);
    expect(JSON.stringify(all.body)).not.toMatch(/sandbox|sbx/i);
  });

  it.each(['limit=0', 'limit=101', 'limit=abc', 'offset=-1', 'limit=1&limit=2', 'status=COMPLETED'])(
    'refuses the query %s with 400 VALIDATION_ERROR',
    async (query) => {
      const res = await stack.api('GET', `/sellers/saques?${query}`, { creds: seller });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    },
  );

  it("reads one withdrawal, and answers 404 for another merchant's or an unknown id", async () => {
    const mine = await stack.api('GET', `/sellers/saques/${ids[0]}`, { creds: seller });
    expect(mine.status).toBe(200);
    expect(mine.body).toMatchObject({ id: ids[0], amountCents: 1_000, status: 'COMPLETED' });
    const foreign = await stack.api('GET', `/sellers/saques/${ids[0]}`, { creds: other });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('NOT_FOUND');
    for (const unknown of [crypto.randomUUID(), 'not-a-uuid', 'x'.repeat(120)]) {
      const res = await stack.api('GET', `/sellers/saques/${unknown}`, { creds: seller });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
  });

  it('answers 400 INVALID_WITHDRAWAL_ID for an id over 120 characters', async () => {
    const res = await stack.api('GET', `/sellers/saques/${'x'.repeat(121)}`, { creds: seller });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_WITHDRAWAL_ID');
    expect(res.body.error.traceId).toEqual(expect.any(String));
  });

  it('answers the same under the legacy /rifeiro prefix, with a Deprecation header', async () => {
    const list = await stack.api('GET', '/rifeiro/saques?limit=1', { creds: seller });
    expect(list.status).toBe(200);
    expect(list.headers.get('deprecation')).toBe('true');
    expect(list.body.withdrawals[0].id).toBe(ids[2]);
    const one = await stack.api('GET', `/rifeiro/saques/${ids[1]}`, { creds: seller });
    expect(one.body.id).toBe(ids[1]);
    const created = await withdraw(seller, { amountCents: 100 }, key(), '/rifeiro');
    expect(created.status).toBe(201);
    await waitForStatus(seller, created.body.id, 'COMPLETED');
  });
});

// Last: every event this file's flows recorded (and any other on this stack) against the API document.
it('records only events whose body matches the payload schema the API document gives their type', async () => {
  const { types, mismatches } = await checkRecordedEvents(stack.sequelize);
  expect(mismatches).toEqual([]);
  expect(types).toEqual(expect.arrayContaining(['withdrawal.completed']));
});

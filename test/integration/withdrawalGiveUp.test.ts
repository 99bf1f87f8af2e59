/**
 * A reservation given up: one idempotency key, one withdrawal (or settlement) row, however the
 * attempts with that key are interrupted. The give-up is provoked the way a database in trouble
 * does it: the test holds the merchant's row lock, so each of the reserve's quick tries times out,
 * the workflow writes its FAILED / NOT_PROCESSED row and the request answers 503. Every later
 * attempt with the key — a plain retry, one whose claim's holder died, one whose claim is gone —
 * answers that row as it is, and no second row is ever written; the failure is announced once as
 * `withdrawal.failed`. Asserts HTTP answers, rows, the outbox and the ledger invariant; nothing
 * is mocked.
 */
import crypto from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { accounts } from '../../core/ledger/accounts';
import { NOT_PROCESSED } from '../../core/transfers/failures';
import { setMerchantPixKey, type MerchantCredentials } from '../../db/identity/merchantAdmin';
import { affectedRows } from '../../db/affectedRows';
import { waitFor } from '../support/env';
import { assertLedgerInvariant, balance } from '../support/ledger';
import { sharedIntegrationStack, type SharedStack } from '../support/sharedStack';
import { signedInMerchant, type SignedInMerchant } from '../support/signedIn';

// Each give-up waits out three reserve attempts of 10 s.
jest.setTimeout(300_000);

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

const newKey = (prefix: string) => `${prefix}-${crypto.randomUUID()}`;
const rows = <T extends object = any>(sql: string, replacements: Record<string, unknown> = {}): Promise<T[]> =>
  stack.sequelize.query<T>(sql, { replacements, type: QueryTypes.SELECT });
const available = (merchantId: string) => balance(stack.sequelize, accounts.merchantAvailable(merchantId));

/**
 * Runs `request` while the merchant's row is locked by another transaction: the reservation
 * cannot take its lock, its quick tries run out and the workflow gives up. The lock is let go
 * once the request has answered.
 */
async function withMerchantLocked<T>(merchantId: string, request: () => Promise<T>): Promise<T> {
  const lock = await stack.sequelize.transaction();
  try {
    await stack.sequelize.query(`SELECT id FROM merchants WHERE id = :id FOR NO KEY UPDATE`, {
      replacements: { id: merchantId },
      transaction: lock,
    });
    return await request();
  } finally {
    await lock.commit();
  }
}

/** The state a request leaves when its API process dies mid-request: IN_PROGRESS, another holder's, lease run out. */
async function holderDied(key: string): Promise<void> {
  const [, meta] = await stack.sequelize.query(
    `UPDATE idempotency_records SET state = 'IN_PROGRESS', holder = :holder, response_status = NULL,
       response_body = NULL, locked_until = now() - interval '1 second' WHERE key = :key`,
    { replacements: { key, holder: crypto.randomUUID() } },
  );
  expect(affectedRows(meta)).toBe(1);
}

/** Every API guard gone: the claim itself deleted (a lost record, an expiry). */
async function claimLost(key: string): Promise<void> {
  await stack.sequelize.query(`DELETE FROM idempotency_records WHERE key = :key`, { replacements: { key } });
}

function withdrawalEvents(withdrawalId: string) {
  return rows<{ type: string; status: string; failure_reason: string }>(
    `SELECT type, payload->>'status' AS status, payload->>'failureReason' AS failure_reason
       FROM outbox_events WHERE aggregate_id = :withdrawalId ORDER BY created_at`,
    { withdrawalId },
  );
}

function reserveEntries(withdrawalId: string) {
  return rows(`SELECT 1 FROM ledger_transactions WHERE movement_key LIKE :k`, { k: `withdrawal-%:${withdrawalId}` });
}

describe('POST /sellers/saques after a give-up', () => {
  let creds: MerchantCredentials;

  beforeAll(async () => {
    creds = await stack.createMerchant({
      name: 'Loja Saque Desistido',
      document: '11144477735',
      pixKey: `financeiro+${crypto.randomUUID().slice(0, 8)}@loja-saque.com.br`,
      pixKeyType: 'EMAIL',
    });
    const charge = await stack.api('POST', '/sellers/pix', { creds, body: { amountCents: 20_000 } });
    expect(charge.status).toBe(201);
    await stack.pay(charge.body.id);
    await waitFor(
      async () => (await stack.api('GET', `/sellers/pix/${charge.body.id}`, { creds })).body?.status === 'PAID',
      'charge PAID',
    );
  });

  it('answers 503, then every retry answers that one FAILED / NOT_PROCESSED withdrawal; one row, one withdrawal.failed', async () => {
    const before = await available(creds.merchantId);
    const key = newKey('saque-desistido');
    const withdraw = () =>
      stack.api('POST', '/sellers/saques', {
        creds,
        body: { amountCents: 5_000 },
        headers: { 'x-idempotency-key': key },
      });

    const first = await withMerchantLocked(creds.merchantId, withdraw);
    expect(first.status).toBe(503);
    expect(first.body.error.code).toBe('SERVICE_UNAVAILABLE');
    const [gaveUp] = await rows<{ id: string }>(`SELECT id FROM withdrawals WHERE merchant_id = :m`, {
      m: creds.merchantId,
    });
    expect(gaveUp).toBeDefined();

    // A plain retry, a replay of it, one after its holder died, one whose claim is gone.
    const retry = await withdraw();
    const replay = await withdraw();
    await holderDied(key);
    const afterDeath = await withdraw();
    await claimLost(key);
    const afterLoss = await withdraw();
    for (const answer of [retry, replay, afterDeath, afterLoss]) {
      expect({ status: answer.status, body: answer.body }).toMatchObject({
        status: 201,
        body: {
          id: gaveUp.id,
          status: 'FAILED',
          failureReason: NOT_PROCESSED.reason,
          idempotencyKey: key,
          totalDebitedCents: 5_000,
        },
      });
    }
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect((await stack.api('GET', `/sellers/saques/${gaveUp.id}`, { creds })).body).toEqual(retry.body);

    expect(
      await rows(`SELECT id, status, failure_code, idempotency_key FROM withdrawals WHERE merchant_id = :m`, {
        m: creds.merchantId,
      }),
    ).toEqual([{ id: gaveUp.id, status: 'FAILED', failure_code: 'NOT_PROCESSED', idempotency_key: key }]);
    expect(await withdrawalEvents(gaveUp.id)).toEqual([
      { type: 'withdrawal.failed', status: 'FAILED', failure_reason: NOT_PROCESSED.reason },
    ]);
    expect(await reserveEntries(gaveUp.id)).toEqual([]);
    expect(await available(creds.merchantId)).toBe(before);
  });
});

describe('POST /settlements after a give-up', () => {
  let owner: SignedInMerchant;

  beforeAll(async () => {
    owner = await signedInMerchant(stack, { emailPrefix: 'settle-giveup', name: 'Loja Repasse Desistido' });
    await setMerchantPixKey(stack.sequelize, owner.merchantId, {
      key: `repasse+${crypto.randomUUID().slice(0, 8)}@loja.com.br`,
      type: 'EMAIL',
    });
    const created = await owner.client.call('POST', '/charges', {
      body: { merchantId: owner.merchantId, amountCents: 20_000 },
      headers: { 'x-idempotency-key': newKey('fund') },
    });
    expect(created.status).toBe(201);
    await stack.pay(created.body.id);
    await waitFor(
      async () => (await owner.client.call('GET', `/charges/${created.body.id}`)).body.status === 'PAID',
      'charge PAID',
    );
  });

  it('answers 503, then every retry answers that one FAILED settlement; one settlement, one withdrawal row', async () => {
    const before = await available(owner.merchantId);
    const key = newKey('settle-desistido');
    const settle = () =>
      owner.client.call('POST', '/settlements', {
        body: { merchantId: owner.merchantId, amountCents: 4_000 },
        headers: { 'x-idempotency-key': key },
      });

    const first = await withMerchantLocked(owner.merchantId, settle);
    expect(first.status).toBe(503);
    expect(first.body.error.code).toBe('SERVICE_UNAVAILABLE');
    const [gaveUp] = await rows<{ id: string }>(`SELECT id FROM withdrawals WHERE merchant_id = :m`, {
      m: owner.merchantId,
    });
    expect(gaveUp).toBeDefined();

    const retry = await settle();
    await holderDied(key);
    const afterDeath = await settle();
    await claimLost(key);
    const afterLoss = await settle();
    for (const answer of [retry, afterDeath, afterLoss]) {
      expect({ status: answer.status, body: answer.body }).toMatchObject({
        status: 201,
        body: {
          id: gaveUp.id,
          withdrawalId: gaveUp.id,
          status: 'FAILED',
          failure: { code: 'NOT_PROCESSED', reason: NOT_PROCESSED.reason },
        },
      });
    }

    expect(await rows(`SELECT id FROM settlements WHERE merchant_id = :m`, { m: owner.merchantId })).toEqual([
      { id: gaveUp.id },
    ]);
    expect(
      await rows(`SELECT id, status, failure_code FROM withdrawals WHERE merchant_id = :m`, { m: owner.merchantId }),
    ).toEqual([{ id: gaveUp.id, status: 'FAILED', failure_code: 'NOT_PROCESSED' }]);
    expect((await withdrawalEvents(gaveUp.id)).map((e) => e.type)).toEqual(['withdrawal.failed']);
    expect(await reserveEntries(gaveUp.id)).toEqual([]);
    expect(await available(owner.merchantId)).toBe(before);
  });
});

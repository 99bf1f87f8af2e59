/**
 * The merchant's row lock that reservations take (db/identity/merchantStore.ts lockMerchant)
 * serialises reservations of one merchant, and nothing else: a row that merely references the
 * merchant (an idempotency claim, a charge, a ledger account, an outbox event…) is inserted
 * meanwhile without waiting. Under FOR UPDATE every such insert's foreign-key check (FOR KEY
 * SHARE on the merchant) waited for the reservation, and transactions that had inserted one
 * and then needed what a reservation held deadlocked: the chaos load saw "deadlock detected" as
 * a 500 on a key claim and as 503s from reservations (withdrawals, batches, settlements) at 4
 * requests a second with nothing killed. FOR NO KEY UPDATE conflicts with itself, not with FOR KEY SHARE.
 */
import crypto from 'node:crypto';
import type { Sequelize, Transaction } from 'sequelize';
import { createMerchantWithCredential } from '../../db/identity/merchantAdmin';
import { lockMerchant } from '../../db/identity/merchantStore';
import { createSequelize } from '../../db/sequelize';
import { testEnv } from '../support/env';

const env = testEnv();
let sequelize: Sequelize;
let merchantId: string;

beforeAll(async () => {
  sequelize = createSequelize(env.databaseUrl, { poolMax: 4 });
  ({ merchantId } = await createMerchantWithCredential(sequelize, { name: 'Loja da Trava' }, '0'.repeat(64)));
});

afterAll(async () => {
  await sequelize?.close();
});

/** Runs `work` in a transaction that gives up waiting for a lock after 3 s (SQLSTATE 55P03). */
async function briefly<T>(work: (t: Transaction) => Promise<T>): Promise<T> {
  return sequelize.transaction(async (t) => {
    await sequelize.query(`SET LOCAL lock_timeout = '3s'`, { transaction: t });
    return work(t);
  });
}

async function withMerchantLocked(work: () => Promise<void>): Promise<void> {
  const held = await sequelize.transaction();
  try {
    expect(await lockMerchant(merchantId, held)).not.toBeNull();
    await work();
  } finally {
    await held.rollback();
  }
}

it('lets a row that references the merchant be inserted while a reservation holds the merchant', async () => {
  await withMerchantLocked(async () => {
    await briefly((t) =>
      sequelize.query(
        `INSERT INTO webhook_endpoints (id, merchant_id, url, events, secret_ciphertext)
         VALUES (:id, :merchantId, 'https://example.com/h', ARRAY['charge.paid'], 'x')`,
        { replacements: { id: crypto.randomUUID(), merchantId }, transaction: t },
      ),
    );
  });
});

it('still makes a second reservation of the same merchant wait for the first', async () => {
  await withMerchantLocked(async () => {
    await expect(briefly((t) => lockMerchant(merchantId, t))).rejects.toMatchObject({
      parent: expect.objectContaining({ code: '55P03' }),
    });
  });
});

/**
 * The lock order of MED 2.0 recovery (activities/ledger/medRecovery.ts). Every MED activity (block,
 * decision, release, deadline) locks its case row first and then the parties' balances. A credit to a
 * merchant that owes used to do the opposite: the ledger writer updated the merchant's available,
 * then locked its cases to recover the debt. A credit arriving while a case of that merchant was
 * being decided then deadlocked with the decision (PostgreSQL aborts one with 40P01, and the
 * activity's retry hides it until it happens under load to an API write). The writer now locks the
 * cases of every credited merchant that owes before it touches a balance: the same order as MED's.
 *
 * Deterministic: the credit's backend is watched in pg_stat_activity until it waits for a lock
 * while the "decision" holds the case; only then does the decision lock the merchant's available.
 */
import crypto from 'node:crypto';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { writeLedgerEntries } from '../../activities/ledger/ledgerWriter';
import { accounts } from '../../core/ledger/accounts';
import { medOpen, movements, type LedgerEntry } from '../../core/ledger/postings';
import { createMerchantWithCredential } from '../../db/identity/merchantAdmin';
import { balanceStore } from '../../db/ledger';
import { createSequelize } from '../../db/sequelize';
import { testEnv, waitFor } from '../support/env';
import { assertLedgerInvariant, balance } from '../support/ledger';

const env = testEnv();
let sequelize: Sequelize;

beforeAll(() => {
  sequelize = createSequelize(env.databaseUrl, { poolMax: 4 });
});

afterAll(async () => {
  await sequelize?.close();
});

/** A merchant with 100 available that owes `owedCents` on one OPEN case of a paid charge (nothing held). */
async function owingMerchant(owedCents: number): Promise<{ merchantId: string; caseId: string }> {
  const { merchantId } = await createMerchantWithCredential(sequelize, { name: 'Loja Devedora' }, '0'.repeat(64));
  const chargeId = crypto.randomUUID();
  const caseId = crypto.randomUUID();
  await sequelize.query(
    `INSERT INTO charges (id, merchant_id, amount_cents, status, expires_at) VALUES (:chargeId, :merchantId, :owedCents, 'PAID', now())`,
    { replacements: { chargeId, merchantId, owedCents } },
  );
  await sequelize.query(
    `INSERT INTO med_infractions (id, provider_infraction_id, merchant_id, charge_id, end_to_end_id, disputed_cents,
       blocked_at, reason, opened_at, deadline_at, parties)
     VALUES (:caseId, :providerId, :merchantId, :chargeId, :e2e, :owedCents, now(), 'FRAUD', now(),
       now() + interval '7 days', :parties::jsonb)`,
    {
      replacements: {
        caseId,
        providerId: `lock-${caseId}`,
        merchantId,
        chargeId,
        e2e: `E${caseId.replace(/-/g, '')}`,
        owedCents,
        parties: JSON.stringify([{ merchantId, shareCents: owedCents, heldCents: 0, owedCents }]),
      },
    },
  );
  // 100 available before the case (so its account row exists, as any merchant's with a payment does), then the debt.
  await sequelize.transaction((t) => writeLedgerEntries(sequelize, [creditOf(merchantId, 100)], t));
  await sequelize.transaction((t) =>
    writeLedgerEntries(
      sequelize,
      [medOpen(movements.medInfraction(caseId).block, [{ merchantId, blockedCents: 0, owedCents }])],
      t,
    ),
  );
  return { merchantId, caseId };
}

function creditOf(merchantId: string, cents: number): LedgerEntry {
  const id = crypto.randomUUID();
  return {
    movementKey: `test-credit:${id}`,
    kind: 'CHARGE_PAID',
    referenceType: 'charge',
    referenceId: id,
    postings: [
      { accountCode: accounts.providerClearing, amountCents: -cents },
      { accountCode: accounts.merchantAvailable(merchantId), amountCents: cents },
    ],
  };
}

it('a credit to a merchant that owes, arriving while a MED step holds its case, waits for the case instead of deadlocking with it; the debt is recovered once', async () => {
  const { merchantId, caseId } = await owingMerchant(500);
  // The MED step: its case first, as every MED activity locks it (activities/med/infraction.ts `locked`).
  const step: Transaction = await sequelize.transaction();
  let creditBackend = 0;
  try {
    await sequelize.query('SELECT id FROM med_infractions WHERE id = :caseId FOR UPDATE', {
      replacements: { caseId },
      transaction: step,
    });
    const credit = sequelize.transaction(async (t) => {
      const [{ pid }] = await sequelize.query<{ pid: number }>('SELECT pg_backend_pid() AS pid', {
        type: QueryTypes.SELECT,
        transaction: t,
      });
      creditBackend = pid;
      return writeLedgerEntries(sequelize, [creditOf(merchantId, 1_000)], t);
    });
    const settled = credit.then(
      () => null,
      (err: unknown) => err,
    );
    // The credit is waiting for a lock the step holds.
    await waitFor(async () => {
      if (!creditBackend) return false;
      const [row] = await sequelize.query<{ wait_event_type: string | null }>(
        'SELECT wait_event_type FROM pg_stat_activity WHERE pid = :pid',
        { replacements: { pid: creditBackend }, type: QueryTypes.SELECT },
      );
      return row?.wait_event_type === 'Lock';
    }, 'the credit waiting for a lock');
    // Then the step takes the merchant's balance, as a block or a release does next.
    await balanceStore.lockedBalance(sequelize, accounts.merchantAvailable(merchantId), step);
    await step.commit();
    expect(await settled).toBeNull();
  } catch (err) {
    await step.rollback().catch(() => undefined);
    throw err;
  }
  // The credit paid the debt first: held for the open case, the rest available.
  expect(await balance(sequelize, accounts.merchantOwed(merchantId))).toBe(0);
  expect(await balance(sequelize, accounts.merchantBlocked(merchantId))).toBe(500);
  expect(await balance(sequelize, accounts.merchantAvailable(merchantId))).toBe(600);
  const [row] = await sequelize.query<{ parties: { owedCents: number; heldCents: number }[] }>(
    'SELECT parties FROM med_infractions WHERE id = :caseId',
    { replacements: { caseId }, type: QueryTypes.SELECT },
  );
  expect(row.parties).toEqual([{ merchantId, shareCents: 500, heldCents: 500, owedCents: 0 }]);
  await assertLedgerInvariant(sequelize);
});

it('many credits at once to two merchants that owe, some to both (a split charge paid): no deadlock, every debt recovered exactly', async () => {
  const a = await owingMerchant(3_000);
  const b = await owingMerchant(3_000);
  // Each credit reaches both merchants (a split charge paid): the writer must lock both merchants' cases in one order.
  const both = (cents: number): LedgerEntry => {
    const id = crypto.randomUUID();
    return {
      movementKey: `test-split-credit:${id}`,
      kind: 'CHARGE_PAID',
      referenceType: 'charge',
      referenceId: id,
      postings: [
        { accountCode: accounts.providerClearing, amountCents: -2 * cents },
        { accountCode: accounts.merchantAvailable(a.merchantId), amountCents: cents },
        { accountCode: accounts.merchantAvailable(b.merchantId), amountCents: cents },
      ],
    };
  };
  const results = await Promise.allSettled(
    Array.from({ length: 12 }, (_, i) =>
      sequelize.transaction((t) =>
        writeLedgerEntries(
          sequelize,
          [i % 3 === 0 ? both(250) : creditOf(i % 2 ? a.merchantId : b.merchantId, 250)],
          t,
        ),
      ),
    ),
  );
  expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
  // 4 split credits of 250 each to both, 4 single credits of 250 to each: 2,000 per merchant, all to its debt.
  for (const m of [a, b]) {
    expect(await balance(sequelize, accounts.merchantOwed(m.merchantId))).toBe(-1_000);
    expect(await balance(sequelize, accounts.merchantBlocked(m.merchantId))).toBe(2_000);
    expect(await balance(sequelize, accounts.merchantAvailable(m.merchantId))).toBe(100);
  }
  await assertLedgerInvariant(sequelize);
});

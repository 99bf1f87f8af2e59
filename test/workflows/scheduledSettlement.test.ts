/**
 * The scheduled settlement's logic on the time-skipping test server: the plan (D0 everything,
 * D1 only what the previous Brasília day ended with, the minimum), and the child withdrawal
 * lifecycle through a provider outage (minutes of backoff in seconds) ending COMPLETED with the
 * money out once. Activities are the real ones on the real test database; the provider is a fake.
 * The schedule itself (a Temporal Schedule) is exercised in test/integration/settlements.test.ts.
 */
import crypto from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { writeLedgerEntry } from '../../activities/ledger/ledgerWriter';
import { brasiliaStartOfDay } from '../../activities/settlements/settlements';
import { accounts } from '../../core/ledger/accounts';
import { chargePaidEntry } from '../../core/ledger/postings';
import { createMerchantWithCredential } from '../../db/identity/merchantAdmin';
import type { ScheduledSettlementResult } from '../../workflows/settlements/types';
import { FakePixProvider } from '../support/fakePixProvider';
import { assertLedgerInvariant, balance } from '../support/ledger';
import { useWorkflowEnv } from '../support/workflowEnv';

jest.setTimeout(120_000);

const FEE = 150;
const wf = useWorkflowEnv();

afterEach(async () => {
  await assertLedgerInvariant(wf.sequelize);
});

async function merchantWith(
  schedule: { frequency: 'D0' | 'D1' | 'WEEKLY'; minimumAmountCents: number } | null,
): Promise<string> {
  const { merchantId } = await createMerchantWithCredential(
    wf.sequelize,
    {
      name: 'Loja Repasse WF',
      pixKey: `repasse+${crypto.randomUUID().slice(0, 8)}@loja.com.br`,
      pixKeyType: 'EMAIL',
      withdrawalFeeCents: FEE,
    },
    crypto.randomBytes(32).toString('hex'),
  );
  if (schedule) {
    await wf.sequelize.query(
      `INSERT INTO settlement_schedules (merchant_id, frequency, minimum_amount_cents) VALUES (:merchantId, :frequency, :minimum)`,
      {
        replacements: { merchantId, frequency: schedule.frequency, minimum: schedule.minimumAmountCents },
      },
    );
  }
  return merchantId;
}

/** Books a paid charge's credit; `at` back-dates its postings (money that arrived on an earlier day). */
async function fund(merchantId: string, amountCents: number, at?: Date): Promise<void> {
  const chargeId = crypto.randomUUID();
  await wf.sequelize.transaction((t) =>
    writeLedgerEntry(wf.sequelize, chargePaidEntry({ chargeId, merchantId, amountCents, feeCents: 0, splits: [] }), t),
  );
  if (at) {
    // Postings are immutable (a trigger refuses updates); only this test transaction skips
    // triggers, to pretend the money arrived yesterday. Amounts and accounts are untouched.
    await wf.sequelize.transaction(async (transaction) => {
      await wf.sequelize.query(`SET LOCAL session_replication_role = replica`, { transaction });
      await wf.sequelize.query(
        `UPDATE ledger_postings SET created_at = :at WHERE transaction_id IN (SELECT id FROM ledger_transactions WHERE movement_key = :key)`,
        { replacements: { at, key: `charge-paid:${chargeId}` }, transaction },
      );
    });
  }
}

async function run(
  merchantId: string,
  provider: FakePixProvider,
): Promise<{ result: ScheduledSettlementResult; workflowId: string }> {
  const workflowId = `settlement-${merchantId}-${new Date().toISOString()}`;
  const result = await wf.withWorker(wf.activities(provider), (taskQueue) =>
    wf.env.client.workflow.execute('scheduledSettlement', { taskQueue, workflowId, args: [{ merchantId }] }),
  );
  return { result: result as ScheduledSettlementResult, workflowId };
}

const available = (merchantId: string) => balance(wf.sequelize, accounts.merchantAvailable(merchantId));

async function settlementRows(merchantId: string) {
  return wf.sequelize.query<{
    id: string;
    withdrawal_id: string;
    trigger: string;
    schedule_run_id: string;
    schedule_frequency: string;
    status: string;
    amount_cents: string;
  }>(
    `SELECT s.id, s.withdrawal_id, s.trigger, s.schedule_run_id, s.schedule_frequency, w.status, w.amount_cents FROM settlements s JOIN withdrawals w ON w.id = s.withdrawal_id WHERE s.merchant_id = :merchantId`,
    { replacements: { merchantId }, type: QueryTypes.SELECT },
  );
}

it('D0 through a provider outage: everything available minus the fee, one transfer, COMPLETED', async () => {
  const merchantId = await merchantWith({ frequency: 'D0', minimumAmountCents: 1_000 });
  await fund(merchantId, 50_000);
  const provider = new FakePixProvider();
  provider.transientTransferFailures = 4;
  const { result, workflowId } = await run(merchantId, provider);
  expect(result).toMatchObject({
    merchantId,
    plan: { kind: 'SETTLE', frequency: 'D0', amountCents: 50_000 - FEE },
    status: 'COMPLETED',
  });
  expect(provider.transfers.size).toBe(1);
  expect(provider.transfers.get(result.settlementId!)?.amountCents).toBe(50_000 - FEE);
  expect(await available(merchantId)).toBe(0);
  expect(await balance(wf.sequelize, accounts.merchantReserved(merchantId))).toBe(0);
  expect(await settlementRows(merchantId)).toEqual([
    {
      id: result.settlementId,
      withdrawal_id: result.settlementId,
      trigger: 'SCHEDULED',
      schedule_run_id: workflowId,
      schedule_frequency: 'D0',
      status: 'COMPLETED',
      amount_cents: String(50_000 - FEE),
    },
  ]);
});

it('below the minimum, or with no schedule config: skips and records nothing', async () => {
  const small = await merchantWith({ frequency: 'D0', minimumAmountCents: 10_000 });
  await fund(small, 5_000);
  const provider = new FakePixProvider();
  expect((await run(small, provider)).result).toMatchObject({
    plan: { kind: 'SKIP', reason: 'BELOW_MINIMUM', amountCents: 5_000 - FEE, minimumAmountCents: 10_000 },
    settlementId: null,
    status: null,
  });
  const unconfigured = await merchantWith(null);
  await fund(unconfigured, 5_000);
  expect((await run(unconfigured, provider)).result).toMatchObject({
    plan: { kind: 'SKIP', reason: 'NO_SCHEDULE' },
    settlementId: null,
  });
  expect(provider.transfers.size).toBe(0);
  expect(await settlementRows(small)).toEqual([]);
  expect(await available(small)).toBe(5_000);
});

it("D1 settles what the previous day ended with, not today's money", async () => {
  const merchantId = await merchantWith({ frequency: 'D1', minimumAmountCents: 0 });
  // The run's "today" is the test server's clock (skipped ahead by earlier tests), not the wall clock.
  const cutoff = brasiliaStartOfDay(new Date(await wf.env.currentTimeMs())).getTime();
  await fund(merchantId, 20_000, new Date(cutoff - 3_600_000)); // the evening before
  await fund(merchantId, 7_000, new Date(cutoff + 60_000)); // arrived today: left for tomorrow's run
  const provider = new FakePixProvider();
  const { result } = await run(merchantId, provider);
  expect(result).toMatchObject({
    plan: { kind: 'SETTLE', frequency: 'D1', amountCents: 20_000 - FEE },
    status: 'COMPLETED',
  });
  expect(await available(merchantId)).toBe(7_000);
});

it('brasiliaStartOfDay is 00:00 in Brasília (03:00 UTC) of the Brasília day', () => {
  expect(brasiliaStartOfDay(new Date('2026-03-10T02:59:00Z')).toISOString()).toBe('2026-03-09T03:00:00.000Z');
  expect(brasiliaStartOfDay(new Date('2026-03-10T03:00:00Z')).toISOString()).toBe('2026-03-10T03:00:00.000Z');
});

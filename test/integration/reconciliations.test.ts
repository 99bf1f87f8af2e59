/**
 * Reconciliations over HTTP against the real stack: the sandbox provider's
 * statement (GET /v1/statements) compared with the ledger. Books that agree change nothing; a
 * lost callback is found and settled through the normal path (credited once); an amount the
 * provider reports differently is flagged and nothing is written; another merchant's
 * reconciliation is 404. The ledger invariant holds after every scenario.
 */
import crypto from 'node:crypto';
import { idEnvioFor } from '../../core/pix/apiPixIds';
import { QueryTypes } from 'sequelize';
import { accounts } from '../../core/ledger/accounts';
import { AppClient, uniqueEmail } from '../support/appClient';
import { waitFor } from '../support/env';
import { startIntegrationStack, type IntegrationStack } from '../support/integrationStack';
import { assertLedgerInvariant, balance } from '../support/ledger';
import { fundByPaidCharge, items, payoutMerchant, setFaults, signedCall, waitForBatchEnd } from '../support/payouts';
import { signedInMerchant } from '../support/signedIn';
import type { MerchantCredentials } from '../../db/identity/merchantAdmin';
import { Merchant, Withdrawal } from '../../db/models';
import { addUserToMerchant, setPlatformOperator } from '../../db/identity/userAdmin';
import type { dailyReconciliation } from '../../workflows/reconciliations/daily';
import {
  dailyReconciliationScheduleId,
  ensureReconciliationSchedule,
} from '../../workers/ensureReconciliationSchedule';
import { pspChargeRef } from '../../core/pix/apiPixIds';

jest.setTimeout(120_000);

let stack: IntegrationStack;
const PASSWORD = 'correct horse battery';
/** Brasília's calendar day (no daylight saving since 2019). */
const today = () => new Date(Date.now() - 3 * 3_600_000).toISOString().slice(0, 10);

beforeAll(async () => {
  // A stack of its own, not the worker's shared one (test/support/sharedStack.ts): it compares platform-wide statements: no other file's data may be in them.
  stack = await startIntegrationStack();
});

afterAll(async () => {
  await stack?.stop();
});

afterEach(async () => {
  await assertLedgerInvariant(stack.sequelize);
});

const key = () => ({ 'x-idempotency-key': `recon-${crypto.randomUUID()}` });

const owner = () => signedInMerchant(stack, { emailPrefix: 'recon', name: 'Loja Conciliação' });

async function charge(client: AppClient, merchantId: string, amountCents: number): Promise<string> {
  const created = await client.call('POST', '/charges', { body: { merchantId, amountCents }, headers: key() });
  expect(created.status).toBe(201);
  return created.body.id;
}

async function payAtSandbox(chargeId: string, body: Record<string, unknown> = {}) {
  const res = await fetch(`${stack.sandboxUrl}/sandbox/charges/${pspChargeRef(chargeId)}/pay`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
}

async function paidCharge(client: AppClient, merchantId: string, amountCents: number): Promise<string> {
  const id = await charge(client, merchantId, amountCents);
  await payAtSandbox(id);
  await waitFor(async () => (await client.call('GET', `/charges/${id}`)).body.status === 'PAID', 'charge PAID');
  return id;
}

async function reconcile(client: AppClient, merchantId: string) {
  const started = await client.call('POST', '/reconciliations', { body: { merchantId, from: today(), to: today() } });
  expect(started.status).toBe(202);
  expect(started.body).toMatchObject({
    merchantId,
    from: today(),
    to: today(),
    status: expect.stringMatching(/RUNNING|COMPLETED/),
  });
  return waitFor(async () => {
    const res = await client.call('GET', `/reconciliations/${started.body.id}`);
    return res.body.status !== 'RUNNING' ? res.body : undefined;
  }, 'reconciliation finished');
}

/** Every ledger account's balance and the number of ledger transactions: what "nothing changed" means. */
async function ledgerSnapshot() {
  const rows = await stack.sequelize.query<{ code: string; balance_cents: string }>(
    'SELECT code, balance_cents FROM ledger_accounts ORDER BY code',
    { type: QueryTypes.SELECT },
  );
  const [tx] = await stack.sequelize.query<{ n: string }>('SELECT count(*) AS n FROM ledger_transactions', {
    type: QueryTypes.SELECT,
  });
  return { balances: Object.fromEntries(rows.map((r) => [r.code, r.balance_cents])), transactions: tx.n };
}

async function chargePaidEntries(chargeId: string): Promise<number> {
  const [row] = await stack.sequelize.query<{ n: string }>(
    `SELECT count(*) AS n FROM ledger_transactions WHERE movement_key = :k`,
    { replacements: { k: `charge-paid:${chargeId}` }, type: QueryTypes.SELECT },
  );
  return Number(row.n);
}

// First in the file: a platform-wide run sees every merchant this file made, so it runs before the others make more.
it('a platform operator reconciles every merchant at once (and heals a lost callback); nobody else runs or reads that', async () => {
  const a = await owner();
  const b = await owner();
  const paid = await paidCharge(a.client, a.merchantId, 1_000);
  const lost = await charge(b.client, b.merchantId, 2_000);
  await payAtSandbox(lost, { callback: false });

  const refused = await a.client.call('POST', '/reconciliations', { body: { from: today(), to: today() } });
  expect([refused.status, refused.body.error.code, refused.body.error.details?.field]).toEqual([
    400,
    'VALIDATION_ERROR',
    'merchantId',
  ]);
  expect((await a.client.call('GET', '/reconciliations?platform=true')).body.error.code).toBe(
    'PLATFORM_OPERATOR_REQUIRED',
  );
  // Forbidden before anything else is judged (schemathesis: a schema-valid query must not be a 400 to a merchant's user).
  expect(
    (await a.client.call('GET', `/reconciliations?platform=true&merchantId=${a.merchantId}`)).body.error.code,
  ).toBe('PLATFORM_OPERATOR_REQUIRED');

  const operator = new AppClient(stack.apiUrl);
  const email = uniqueEmail('recon-operator');
  await operator.register({ email, password: PASSWORD });
  await setPlatformOperator({ email, operator: true });
  await operator.login(email, PASSWORD);
  const started = await operator.call('POST', '/reconciliations', { body: { from: today(), to: today() } });
  expect(started.status).toBe(202);
  expect(started.body).toMatchObject({ merchantId: null, from: today(), to: today() });
  const report = await waitFor(async () => {
    const res = await operator.call('GET', `/reconciliations/${started.body.id}`);
    return res.body.status !== 'RUNNING' ? res.body : undefined;
  }, 'platform reconciliation finished');
  // Both merchants' books: a's payment matched, b's lost payment healed through the normal path.
  expect(report).toMatchObject({
    status: 'COMPLETED',
    counts: { matched: 1, missingInLedger: 1, healed: 1, amountMismatch: 0, missingAtProvider: 0 },
  });
  expect(report.differences).toEqual([
    expect.objectContaining({ kind: 'MISSING_IN_LEDGER', subject: 'PAYMENT', chargeId: lost, healed: true }),
  ]);
  await waitFor(
    async () => (await b.client.call('GET', `/charges/${lost}`)).body.status === 'PAID',
    'lost charge PAID',
  );
  expect(await chargePaidEntries(lost)).toBe(1);
  expect(await chargePaidEntries(paid)).toBe(1);

  const listed = await operator.call('GET', '/reconciliations?platform=true');
  expect(listed.body).toMatchObject({
    data: [expect.objectContaining({ id: report.id, merchantId: null })],
    pagination: { total: 1 },
  });
  // To a merchant's user the platform run does not exist; platform=true with a merchant is a contradiction.
  expect((await a.client.call('GET', `/reconciliations/${report.id}`)).body.error.code).toBe(
    'RECONCILIATION_NOT_FOUND',
  );
  expect((await operator.call('GET', `/reconciliations?platform=true&merchantId=${a.merchantId}`)).status).toBe(400);
  expect((await operator.call('GET', '/reconciliations?platform=yes')).status).toBe(400);
});

it('books that agree (two payments, one devolução): everything matched, nothing changes', async () => {
  const { client, merchantId } = await owner();
  const a = await paidCharge(client, merchantId, 10_000);
  await paidCharge(client, merchantId, 2_500);
  await charge(client, merchantId, 777); // unpaid: on neither side
  // A partial devolução, settled: the statement's RETURN matches the REFUND_COMPLETED entry.
  const refund = await client.call('POST', `/charges/${a}/refund`, {
    body: { amountCents: 3_000, reason: 'parcial' },
    headers: key(),
  });
  expect(refund.status).toBe(200);
  await waitFor(
    async () => (await client.call('GET', `/charges/${a}`)).body.refunds[0].status === 'SUCCEEDED',
    'refund SUCCEEDED',
  );
  const before = await ledgerSnapshot();
  const report = await reconcile(client, merchantId);
  expect(report).toMatchObject({
    status: 'COMPLETED',
    counts: { matched: 3, missingInLedger: 0, missingAtProvider: 0, amountMismatch: 0, healed: 0 },
    differences: [],
    completedAt: expect.any(String),
  });
  // Only this reconciliation's own work ran: the whole ledger is as it was.
  expect(await ledgerSnapshot()).toEqual(before);
  expect(await chargePaidEntries(a)).toBe(1);
  const list = await client.call('GET', `/reconciliations?merchantId=${merchantId}`);
  expect(list.status).toBe(200);
  expect(list.body).toMatchObject({
    data: [expect.objectContaining({ id: report.id })],
    pagination: { total: 1, limit: 20, offset: 0, hasMore: false },
  });
});

it('a lost callback is found and settled through the normal path: PAID, credited once, reported healed', async () => {
  const { client, merchantId } = await owner();
  const id = await charge(client, merchantId, 10_000);
  await payAtSandbox(id, { callback: false });
  // The provider has the payment; no callback came: still PENDING, nothing credited.
  await new Promise((r) => setTimeout(r, 500));
  expect((await client.call('GET', `/charges/${id}`)).body.status).toBe('PENDING');
  expect(await balance(stack.sequelize, accounts.merchantAvailable(merchantId))).toBe(0);

  const report = await reconcile(client, merchantId);
  expect(report).toMatchObject({
    status: 'COMPLETED',
    counts: { matched: 0, missingInLedger: 1, missingAtProvider: 0, amountMismatch: 0, healed: 1 },
  });
  expect(report.differences).toEqual([
    expect.objectContaining({
      kind: 'MISSING_IN_LEDGER',
      chargeId: id,
      providerAmountCents: 10_000,
      ledgerAmountCents: null,
      healed: true,
      resolution: 'SIGNALLED',
      endToEndId: expect.any(String),
    }),
  ]);
  await waitFor(
    async () => (await client.call('GET', `/charges/${id}`)).body.status === 'PAID',
    'charge healed to PAID',
  );
  const [row] = await stack.sequelize.query<{ end_to_end_id: string }>(
    'SELECT end_to_end_id FROM charges WHERE id = :id',
    { replacements: { id }, type: QueryTypes.SELECT },
  );
  expect(row.end_to_end_id).toBe(report.differences[0].endToEndId);
  expect(await balance(stack.sequelize, accounts.merchantAvailable(merchantId))).toBe(9_900); // 1 % fee
  expect(await chargePaidEntries(id)).toBe(1);

  // Reconciling again: now the books agree, and nothing is credited twice.
  const again = await reconcile(client, merchantId);
  expect(again.counts).toEqual({ matched: 1, missingInLedger: 0, missingAtProvider: 0, amountMismatch: 0, healed: 0 });
  expect(await chargePaidEntries(id)).toBe(1);
  expect(await balance(stack.sequelize, accounts.merchantAvailable(merchantId))).toBe(9_900);
});

it('a lost payment of a charge already closed goes through the late-payment path: PAID after the fact, credited once', async () => {
  const { client, merchantId } = await owner();
  const id = await charge(client, merchantId, 5_000);
  const cancelled = await client.call('POST', `/charges/${id}/cancel`, { body: {} });
  expect(cancelled.body.status).toBe('CANCELED'); // the application API's spelling
  // SPI settled it while the charge was being closed, and the callback was lost.
  await payAtSandbox(id, { late: true, callback: false });
  const report = await reconcile(client, merchantId);
  expect(report.counts).toEqual({ matched: 0, missingInLedger: 1, missingAtProvider: 0, amountMismatch: 0, healed: 1 });
  expect(report.differences).toEqual([
    expect.objectContaining({
      kind: 'MISSING_IN_LEDGER',
      subject: 'PAYMENT',
      chargeId: id,
      healed: true,
      resolution: 'LATE_PAYMENT',
    }),
  ]);
  await waitFor(
    async () => (await client.call('GET', `/charges/${id}`)).body.status === 'PAID',
    'late payment settled',
  );
  expect(await balance(stack.sequelize, accounts.merchantAvailable(merchantId))).toBe(4_950);
  expect(await chargePaidEntries(id)).toBe(1);
});

it('an amount the provider reports differently is flagged, and nothing is written', async () => {
  const { client, merchantId } = await owner();
  const id = await paidCharge(client, merchantId, 10_000);
  const altered = await fetch(`${stack.sandboxUrl}/sandbox/charges/${pspChargeRef(id)}/statement-amount`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ amountCents: 12_345 }),
  });
  expect(altered.status).toBe(200);
  const before = await ledgerSnapshot();
  const report = await reconcile(client, merchantId);
  expect(report).toMatchObject({
    status: 'COMPLETED',
    counts: { matched: 0, missingInLedger: 0, missingAtProvider: 0, amountMismatch: 1, healed: 0 },
  });
  expect(report.differences).toEqual([
    expect.objectContaining({
      kind: 'AMOUNT_MISMATCH',
      chargeId: id,
      providerAmountCents: 12_345,
      ledgerAmountCents: 10_000,
      healed: false,
      resolution: null,
    }),
  ]);
  expect(await ledgerSnapshot()).toEqual(before);
  expect((await client.call('GET', `/charges/${id}`)).body.status).toBe('PAID');
});

describe('transfers out', () => {
  /** A seller merchant with a Pix key and payouts, funded by a paid charge, with this test's user as its owner. */
  async function sellerWithOwner() {
    const creds = await payoutMerchant(stack, { feeCents: 50 });
    await Merchant.update(
      {
        pixKey: `financeiro+${crypto.randomUUID().slice(0, 8)}@loja.com.br`,
        pixKeyType: 'EMAIL',
        withdrawalFeeCents: 150,
      },
      { where: { id: creds.merchantId } },
    );
    await fundByPaidCharge(stack, creds, 50_000);
    const client = new AppClient(stack.apiUrl);
    const email = uniqueEmail('recon-transfer');
    await client.register({ email, password: PASSWORD });
    await addUserToMerchant({ email, merchantId: creds.merchantId, role: 'finance' });
    await client.login(email, PASSWORD);
    return { creds, client };
  }

  async function withdraw(creds: MerchantCredentials, amountCents: number): Promise<string> {
    const res = await stack.api('POST', '/sellers/saques', { creds, body: { amountCents }, headers: key() });
    expect(res.status).toBe(201);
    await waitFor(async () => (await Withdrawal.findByPk(res.body.id))?.status === 'COMPLETED', 'withdrawal COMPLETED');
    return res.body.id;
  }

  it('a completed withdrawal and paid payout items match the statement, fees aside; nothing changes', async () => {
    const { creds, client } = await sellerWithOwner();
    await withdraw(creds, 7_000);
    const batch = await signedCall(stack, creds, 'POST', '/v1/payouts/batches', {
      idempotencyKey: `recon-${crypto.randomUUID()}`,
      items: items(2, { amountCents: 1_500 }),
    });
    expect(batch.status).toBe(201);
    expect((await waitForBatchEnd(stack, creds, batch.body.batchId)).status).toBe('COMPLETED');
    const before = await ledgerSnapshot();
    const report = await reconcile(client, creds.merchantId);
    // The funding payment, the withdrawal and the two payout items.
    expect(report).toMatchObject({
      status: 'COMPLETED',
      counts: { matched: 4, missingInLedger: 0, missingAtProvider: 0, amountMismatch: 0, healed: 0 },
      differences: [],
    });
    expect(await ledgerSnapshot()).toEqual(before);
  });

  it('a transfer the provider reports with another amount is flagged as TRANSFER; nothing is written', async () => {
    const { creds, client } = await sellerWithOwner();
    const withdrawalId = await withdraw(creds, 7_000);
    // The sandbox knows the send by its idEnvio (Efí's id, derived from ours).
    const set = await fetch(`${stack.sandboxUrl}/sandbox/transfers/${idEnvioFor(withdrawalId)}/statement-amount`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ amountCents: 7_100 }),
    });
    expect(set.status).toBe(200);
    const before = await ledgerSnapshot();
    const report = await reconcile(client, creds.merchantId);
    expect(report.counts).toEqual({
      matched: 1,
      missingInLedger: 0,
      missingAtProvider: 0,
      amountMismatch: 1,
      healed: 0,
    });
    expect(report.differences).toEqual([
      expect.objectContaining({
        kind: 'AMOUNT_MISMATCH',
        subject: 'TRANSFER',
        transferId: withdrawalId,
        transferKind: 'WITHDRAWAL',
        chargeId: null,
        providerAmountCents: 7_100,
        ledgerAmountCents: 7_000,
        healed: false,
        endToEndId: expect.any(String),
      }),
    ]);
    expect(await ledgerSnapshot()).toEqual(before);
  });
});

it('a provider down through every retry: FAILED with our words only (no provider text, host or path), nothing written', async () => {
  const { client, merchantId } = await owner();
  await paidCharge(client, merchantId, 1_000);
  const before = await ledgerSnapshot();
  await setFaults(stack, { errorRate: 1 });
  try {
    const started = await client.call('POST', '/reconciliations', { body: { merchantId, from: today(), to: today() } });
    expect(started.status).toBe(202);
    const report = await waitFor(
      async () => {
        const res = await client.call('GET', `/reconciliations/${started.body.id}`);
        return res.body.status !== 'RUNNING' ? res.body : undefined;
      },
      'reconciliation FAILED',
      90_000,
    );
    expect(report).toMatchObject({
      status: 'FAILED',
      counts: { matched: 0, missingInLedger: 0, missingAtProvider: 0, amountMismatch: 0, healed: 0 },
      differences: [],
    });
    expect(report.failureReason).toBe('the provider’s statement could not be read (PROVIDER_UNAVAILABLE)');
  } finally {
    await setFaults(stack, null);
  }
  expect(await ledgerSnapshot()).toEqual(before);
});

it('another merchant’s reconciliation is 404; bad ranges are 400 in the envelope', async () => {
  const a = await owner();
  const b = await owner();
  const report = await reconcile(a.client, a.merchantId);
  const other = await b.client.call('GET', `/reconciliations/${report.id}`);
  expect(other.status).toBe(404);
  expect(other.body.error.code).toBe('RECONCILIATION_NOT_FOUND');
  expect((await b.client.call('GET', `/reconciliations?merchantId=${a.merchantId}`)).body.error.code).toBe(
    'MERCHANT_NOT_FOUND',
  );
  const start = await b.client.call('POST', '/reconciliations', {
    body: { merchantId: a.merchantId, from: today(), to: today() },
  });
  expect([start.status, start.body.error.code]).toEqual([404, 'MERCHANT_NOT_FOUND']);
  expect((await b.client.call('GET', `/reconciliations/${crypto.randomUUID()}`)).status).toBe(404);

  const bad = async (body: unknown) => {
    const res = await b.client.call('POST', '/reconciliations', { body });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
  };
  await bad({ merchantId: b.merchantId, from: '2026-01-01', to: '2026-03-01' }); // > 31 days
  await bad({ merchantId: b.merchantId, from: '2026-02-10', to: '2026-02-01' }); // to before from
  await bad({ merchantId: b.merchantId, from: '2026-02-30', to: '2026-03-01' }); // not a date
  await bad({ from: today(), to: today() }); // merchantId required unless a platform operator
  await bad({ merchantId: b.merchantId, from: today(), to: '2999-01-01' }); // future (and too long)
  expect((await b.client.call('GET', '/reconciliations/not-a-uuid')).status).toBe(400);
});

it('the daily run reconciles each merchant the day touched, once per day, and heals a lost callback', async () => {
  const { client, merchantId } = await owner();
  const id = await charge(client, merchantId, 4_000);
  await payAtSandbox(id, { callback: false });
  const run = (n: number) =>
    stack.temporal.workflow.execute<typeof dailyReconciliation>('dailyReconciliation', {
      workflowId: `daily-test-${crypto.randomUUID()}-${n}`,
      taskQueue: stack.taskQueue,
      args: [{ day: today() }],
    });
  const first = await run(1);
  expect(first.day).toBe(today());
  const mine = (await client.call('GET', `/reconciliations?merchantId=${merchantId}`)).body.data;
  expect(mine).toHaveLength(1);
  expect(first.reconciliationIds).toContain(mine[0].id);
  expect(mine[0]).toMatchObject({
    status: 'COMPLETED',
    from: today(),
    to: today(),
    counts: { missingInLedger: 1, healed: 1 },
  });
  await waitFor(
    async () => (await client.call('GET', `/charges/${id}`)).body.status === 'PAID',
    'charge healed to PAID',
  );
  expect(await balance(stack.sequelize, accounts.merchantAvailable(merchantId))).toBe(3_960);
  // A second run for the same day (a retried schedule) creates nothing new.
  const second = await run(2);
  expect(second.reconciliationIds).toEqual(first.reconciliationIds);
  expect((await client.call('GET', `/reconciliations?merchantId=${merchantId}`)).body.data).toHaveLength(1);
  expect(await chargePaidEntries(id)).toBe(1);
});

it('the daily Schedule exists once, 04:00 Brasília, pausable', async () => {
  await ensureReconciliationSchedule(stack.temporal, stack.taskQueue);
  await ensureReconciliationSchedule(stack.temporal, stack.taskQueue); // idempotent at every boot
  const handle = stack.temporal.schedule.getHandle(dailyReconciliationScheduleId(stack.taskQueue));
  try {
    const described = await handle.describe();
    expect(described.spec.timezone).toBe('America/Sao_Paulo');
    expect(described.action).toMatchObject({ type: 'startWorkflow', workflowType: 'dailyReconciliation' });
    await handle.pause('test');
    expect((await handle.describe()).state.paused).toBe(true);
  } finally {
    await handle.delete();
  }
});

/**
 * PayoutBatch on the time-skipping server with the real activities and database: a provider
 * that is down for a long time, and one that pays but loses its answers, are waited out with
 * backoff in seconds of real time — and every item is paid exactly once.
 */
import crypto from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { Sequelize } from 'sequelize';
import { createActivities } from '../../activities';
import { writeLedgerEntry } from '../../activities/db/ledgerWriter';
import { accounts } from '../../core/ledger/accounts';
import { chargePaidEntry } from '../../core/ledger/postings';
import { createMerchantWithCredential } from '../../db/merchantAdmin';
import { PayoutBatch, PayoutItem } from '../../db/models';
import { createSequelize } from '../../db/sequelize';
import { workflowsPath } from '../../workers/createWorker';
import { payoutBatchWorkflowId, reserveBatchUpdate } from '../../workflows/payout/definitions';
import { FakePixProvider } from '../support/fakePixProvider';
import { testEnv } from '../support/env';
import { assertLedgerInvariant, balance } from '../support/ledger';
import { createTimeSkippingEnv } from '../support/timeSkipping';

jest.setTimeout(120_000);

let env: TestWorkflowEnvironment;
let sequelize: Sequelize;

beforeAll(async () => {
  sequelize = createSequelize(testEnv().databaseUrl);
  env = await createTimeSkippingEnv();
});

afterAll(async () => {
  await env?.teardown();
  await sequelize?.close();
});

afterEach(async () => {
  await assertLedgerInvariant(sequelize);
});

/** A funded merchant and a staged batch of `n` items of 1,000 cents: what the API would have made. */
async function stagedBatch(n: number) {
  const { merchantId } = await createMerchantWithCredential(sequelize, { name: 'Pagadora WF', payoutsEnabled: true }, crypto.randomBytes(32).toString('hex'));
  await sequelize.transaction((t) =>
    writeLedgerEntry(sequelize, chargePaidEntry({ chargeId: crypto.randomUUID(), merchantId, amountCents: 100_000, feeCents: 0, splits: [] }), t),
  );
  const batchId = crypto.randomUUID();
  await PayoutBatch.create({ id: batchId, merchantId, idempotencyKey: `wf-${batchId}`, status: 'CREATED', description: null, metadata: null, itemsCount: n, totalAmountCents: n * 1_000, totalFeeCents: 0, cancelReason: null, completedAt: null });
  await PayoutItem.bulkCreate(
    Array.from({ length: n }, (_, rowIndex) => ({
      id: crypto.randomUUID(), batchId, merchantId, rowIndex, status: 'PENDING' as const, amountCents: 1_000, feeCents: 0,
      pixKey: `r${rowIndex}@example.com`, pixKeyType: 'EMAIL', recipientName: `R ${rowIndex}`, recipientDocument: null, referenceId: null,
      providerTransferId: null, endToEndId: null, lastError: null, lastErrorCode: null, settledAt: null, releasedAt: null,
    })),
  );
  return { merchantId, batchId };
}

async function runBatch(provider: FakePixProvider, batch: { merchantId: string; batchId: string }, n: number, during?: () => Promise<void>) {
  const taskQueue = `pb-${crypto.randomUUID()}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowsPath: require.resolve(workflowsPath),
    activities: createActivities({ sequelize, provider, providerCallbackUrl: 'http://127.0.0.1:1/unused' }),
  });
  return worker.runUntil(async () => {
    const handle = await env.client.workflow.start('payoutBatch', {
      taskQueue,
      workflowId: payoutBatchWorkflowId(batch.batchId),
      args: [{ batchId: batch.batchId, merchantId: batch.merchantId, itemsCount: n, chunkSize: 2, parallelChunks: 2, itemConcurrency: 2 }],
    });
    await handle.executeUpdate(reserveBatchUpdate);
    await during?.();
    return handle.result();
  });
}

it('waits out a long provider outage with backoff and pays every item once', async () => {
  const provider = new FakePixProvider();
  provider.transientTransferFailures = 60; // hours of retries at up to 2 minutes apart per item
  const batch = await stagedBatch(5);
  const realStart = Date.now();
  const outcome = await runBatch(provider, batch, 5);
  expect(outcome).toMatchObject({ status: 'COMPLETED', releasedAmountCents: 0 });
  expect(Date.now() - realStart).toBeLessThan(60_000);
  expect(provider.transfers.size).toBe(5);
  const items = await PayoutItem.findAll({ where: { batchId: batch.batchId } });
  expect(items.every((i) => i.status === 'PAID' && i.attempts >= 1)).toBe(true);
  expect(items.reduce((s, i) => s + i.attempts, 0)).toBeGreaterThan(5);
  expect(await balance(sequelize, accounts.merchantReserved(batch.merchantId))).toBe(0);
});

it('asks the provider, before sending again, when the provider paid but its answer was lost', async () => {
  const provider = new FakePixProvider();
  provider.loseTransferAnswers = true;
  const batch = await stagedBatch(4);
  const outcome = await runBatch(provider, batch, 4, async () => {
    await env.sleep('30 minutes');
    provider.loseTransferAnswers = false;
  });
  expect(outcome.status).toBe('COMPLETED');
  expect(provider.transfers.size).toBe(4); // one transfer per item, however many calls
  expect(provider.transferCalls).toBe(4); // each retry found the transfer by reference instead of sending again
  // This batch's own accounts: the shared database makes global sums vacuous.
  expect(await balance(sequelize, accounts.merchantReserved(batch.merchantId))).toBe(0);
  expect(await balance(sequelize, accounts.merchantAvailable(batch.merchantId))).toBe(100_000 - 4_000);
});

describe('one transfer path: nothing is released while the provider may have paid (H1, L3)', () => {
  it('settles PAID from the provider record when a retry after a lost answer gets a permanent error', async () => {
    const provider = new FakePixProvider();
    provider.transferScript = ['lose', 'unauthorized', 'unauthorized'];
    const batch = await stagedBatch(1);
    const outcome = await runBatch(provider, batch, 1);
    expect(outcome).toMatchObject({ status: 'COMPLETED', releasedAmountCents: 0 });
    expect(provider.transfers.size).toBe(1);
    const [item] = await PayoutItem.findAll({ where: { batchId: batch.batchId } });
    expect(item.status).toBe('PAID');
    expect(item.providerTransferId).toBe([...provider.transfers.values()][0].id);
    expect(await balance(sequelize, accounts.merchantReserved(batch.merchantId))).toBe(0);
    expect(await balance(sequelize, accounts.merchantAvailable(batch.merchantId))).toBe(100_000 - 1_000);
  });

  it('releases an item the provider has no record of only after the grace period, in our own words', async () => {
    const provider = new FakePixProvider();
    provider.transferScript = ['unauthorized'];
    const batch = await stagedBatch(1);
    const started = await env.currentTimeMs();
    const outcome = await runBatch(provider, batch, 1);
    expect(outcome).toMatchObject({ status: 'FAILED', releasedAmountCents: 0 });
    expect(provider.transfers.size).toBe(0);
    const [item] = await PayoutItem.findAll({ where: { batchId: batch.batchId } });
    expect(item.status).toBe('FAILED');
    expect(item.lastErrorCode).toBe('TRANSFER_NOT_ACCEPTED');
    expect(item.lastError).not.toMatch(/401|API key|sk_live/);
    // The release waited for the grace period (time-skipped) and asked the provider again.
    expect((await env.currentTimeMs()) - started).toBeGreaterThanOrEqual(2 * 60_000);
    expect(await balance(sequelize, accounts.merchantReserved(batch.merchantId))).toBe(0);
    expect(await balance(sequelize, accounts.merchantAvailable(batch.merchantId))).toBe(100_000);
  });

  it('finds a transfer the provider made although it refused a repeated call', async () => {
    const provider = new FakePixProvider();
    provider.transferScript = ['lose', 'rejected'];
    const batch = await stagedBatch(1);
    const outcome = await runBatch(provider, batch, 1);
    expect(outcome.status).toBe('COMPLETED');
    expect(provider.transfers.size).toBe(1);
    expect(await balance(sequelize, accounts.merchantReserved(batch.merchantId))).toBe(0);
  });
});

/**
 * The worker process is killed (SIGKILL) in the middle of a batch and a new one started:
 * every item must end paid exactly once — checked against the sandbox provider's own record of
 * transfers — and the ledger must balance.
 */
import crypto from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { accounts } from '../../core/ledger/accounts';
import { PayoutItem } from '../../db/models';
import { waitFor } from '../support/env';
import { startIntegrationStack, type IntegrationStack } from '../support/integrationStack';
import { assertLedgerInvariant, balance } from '../support/ledger';
import {
  fundByPaidCharge,
  items,
  payoutMerchant,
  sandboxTransfers,
  setFaults,
  signedCall,
  waitForBatchEnd,
} from '../support/payouts';
import { killHard, spawnWorkerProcess } from '../support/workerProcess';

jest.setTimeout(180_000);

let stack: IntegrationStack;
const workers: ChildProcess[] = [];

beforeAll(async () => {
  stack = await startIntegrationStack({
    inProcessWorker: false,
    apiOverrides: { payoutSettings: { chunkSize: 20, parallelChunks: 2, itemConcurrency: 3, sliceSize: 9 } },
  });
  workers.push(spawnWorkerProcess(stack.workerEnv));
});

afterAll(async () => {
  for (const w of workers) await killHard(w);
  await stack?.stop();
});

it('pays every item exactly once across a worker crash and restart', async () => {
  const m = await payoutMerchant(stack, { feeCents: 5 });
  await fundByPaidCharge(stack, m, 200_000);
  const before = await balance(stack.sequelize, accounts.merchantAvailable(m.merchantId));
  await setFaults(stack, { latencyMs: 100 });

  const created = await signedCall(stack, m, 'POST', '/v1/payouts/batches', {
    idempotencyKey: `crash-${crypto.randomUUID()}`,
    items: items(60, { amountCents: 1_500 }),
  });
  expect(created.status).toBe(201);
  const batchId = created.body.batchId as string;

  await waitFor(
    async () => (await PayoutItem.count({ where: { batchId, status: 'PAID' } })) >= 10,
    'ten items paid before the crash',
    60_000,
  );
  await killHard(workers[0]);
  const paidAtCrash = await PayoutItem.count({ where: { batchId, status: 'PAID' } });
  expect(paidAtCrash).toBeLessThan(60);

  workers.push(spawnWorkerProcess(stack.workerEnv));
  const done = await waitForBatchEnd(stack, m, batchId, 150_000);
  expect(done).toMatchObject({ status: 'COMPLETED', paidItems: 60, failedItems: 0 });

  const transfers = await sandboxTransfers(stack);
  const rows = await PayoutItem.findAll({ where: { batchId } });
  for (const item of rows) {
    expect(item.status).toBe('PAID');
    expect(transfers[item.id]?.created).toBe(1);
  }
  expect(await balance(stack.sequelize, accounts.merchantAvailable(m.merchantId))).toBe(before - 60 * 1_505);
  expect(await balance(stack.sequelize, accounts.merchantReserved(m.merchantId))).toBe(0);
  await assertLedgerInvariant(stack.sequelize);
});

/**
 * The worker process is killed (SIGKILL) in the middle of a 300-item batch and a new one started:
 * every item must end paid exactly once — checked against the sandbox PSP's own record of Efí
 * sends, one accepted send per idEnvio — and the ledger must balance.
 */
import crypto from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { accounts } from '../../core/ledger/accounts';
import { idEnvioFor } from '../../core/pix/apiPixIds';
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

jest.setTimeout(300_000);

const N = 300;

let stack: IntegrationStack;
const workers: ChildProcess[] = [];

/**
 * PIX_SEND_CONCURRENCY=4 (the default is 1): each Efí send holds its slot until its outcome is
 * read (the sandbox's 150 ms of EM_PROCESSAMENTO plus this test's 100 ms per call), so 300 sends
 * one at a time would take minutes. What this file proves is exactly-once across a crash, not
 * the pacing (payoutTwoWorkers.test.ts checks that at the default of 1); four slots, held as
 * PostgreSQL advisory locks, are also what a SIGKILL must let go of for the new worker.
 */
const workerEnv = () => ({ ...stack.workerEnv, PIX_SEND_CONCURRENCY: '4' });

beforeAll(async () => {
  stack = await startIntegrationStack({
    inProcessWorker: false,
    // Two chunks at a time, four items each in flight: while one chunk settles its answers in the
    // database the other's sends keep the four slots busy (the rest wait for a slot); slices of
    // 12, so the kill lands inside one.
    apiOverrides: { payoutSettings: { chunkSize: 50, parallelChunks: 2, itemConcurrency: 4, sliceSize: 12 } },
  });
  workers.push(spawnWorkerProcess(workerEnv()));
});

afterAll(async () => {
  for (const w of workers) await killHard(w);
  await stack?.stop();
});

it('pays every item exactly once across a worker crash and restart', async () => {
  const m = await payoutMerchant(stack, { feeCents: 5 });
  await fundByPaidCharge(stack, m, 500_000);
  const before = await balance(stack.sequelize, accounts.merchantAvailable(m.merchantId));
  await setFaults(stack, { latencyMs: 100 });

  const created = await signedCall(stack, m, 'POST', '/v1/payouts/batches', {
    idempotencyKey: `crash-${crypto.randomUUID()}`,
    items: items(N, { amountCents: 1_500 }),
  });
  expect(created.status).toBe(201);
  const batchId = created.body.batchId as string;

  await waitFor(
    async () => (await PayoutItem.count({ where: { batchId, status: 'PAID' } })) >= N / 3,
    'a third of the items paid before the crash',
    120_000,
  );
  await killHard(workers[0]);
  const paidAtCrash = await PayoutItem.count({ where: { batchId, status: 'PAID' } });
  expect(paidAtCrash).toBeLessThan(N);

  workers.push(spawnWorkerProcess(workerEnv()));
  const done = await waitForBatchEnd(stack, m, batchId, 240_000);
  expect(done).toMatchObject({ status: 'COMPLETED', paidItems: N, failedItems: 0 });

  const transfers = await sandboxTransfers(stack);
  const rows = await PayoutItem.findAll({ where: { batchId } });
  expect(rows).toHaveLength(N);
  for (const item of rows) {
    expect(item.status).toBe('PAID');
    // One accepted send under the item's idEnvio (created 1), the one our row names.
    expect({ item: item.id, created: transfers[item.id]?.created }).toEqual({ item: item.id, created: 1 });
    expect(item.providerTransferId).toBe(idEnvioFor(item.id));
    expect(item.endToEndId).toBe(stack.sandbox.state.efiSends.get(idEnvioFor(item.id))?.endToEndId);
  }
  expect(await balance(stack.sequelize, accounts.merchantAvailable(m.merchantId))).toBe(before - N * 1_505);
  expect(await balance(stack.sequelize, accounts.merchantReserved(m.merchantId))).toBe(0);
  await assertLedgerInvariant(stack.sequelize);
});

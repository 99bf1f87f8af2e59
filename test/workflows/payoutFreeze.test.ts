/**
 * Freezing a merchant stops its payouts at once (issue 8 item 2, review H4), on the
 * time-skipping server with the real activities and database: once the freeze has committed no
 * item is sent for the first time, items already sent finish, the batch parks (PROCESSING, unsent
 * items PENDING, their funding reserved) and resumes after the unfreeze.
 */
import crypto from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { Op, type Sequelize } from 'sequelize';
import { createActivities } from '../../activities';
import { accounts } from '../../core/ledger/accounts';
import { setWithdrawalsFrozen } from '../../db/merchantAdmin';
import { PayoutBatch, PayoutItem } from '../../db/models';
import { createSequelize } from '../../db/sequelize';
import { workflowsPath } from '../../workers/createWorker';
import { payoutBatchWorkflowId, reserveBatchUpdate } from '../../workflows/payout/definitions';
import { FakePixProvider } from '../support/fakePixProvider';
import { testEnv, waitFor } from '../support/env';
import { assertLedgerInvariant, balance } from '../support/ledger';
import { createTimeSkippingEnv } from '../support/timeSkipping';
import { stagedBatch } from '../support/stagedBatch';

jest.setTimeout(180_000);

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

const ITEMS = 500;

it('sends nothing new after the freeze commits, parks, and resumes after the unfreeze', async () => {
  const { merchantId, batchId } = await stagedBatch(sequelize, ITEMS, { amountCents: 100, name: 'Pagadora Congelada' });
  const provider = new FakePixProvider();
  const taskQueue = `freeze-${crypto.randomUUID()}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowsPath: require.resolve(workflowsPath),
    activities: createActivities({ sequelize, provider, providerCallbackUrl: 'http://127.0.0.1:1/unused' }),
  });

  const outcome = await worker.runUntil(async () => {
    const handle = await env.client.workflow.start('payoutBatch', {
      taskQueue,
      workflowId: payoutBatchWorkflowId(batchId),
      args: [{ batchId, merchantId, itemsCount: ITEMS, chunkSize: 250, parallelChunks: 2, itemConcurrency: 5, sliceSize: 50 }],
    });
    await handle.executeUpdate(reserveBatchUpdate);
    await waitFor(async () => (await PayoutItem.count({ where: { batchId, status: 'PAID' } })) >= 40, 'some items to be paid', 60_000);

    await setWithdrawalsFrozen(sequelize, merchantId, true);
    // What may still reach the provider: items claimed before the freeze committed.
    const claimed = new Set((await PayoutItem.findAll({ where: { batchId, status: { [Op.ne]: 'PENDING' } }, attributes: ['id'] })).map((i) => i.id));
    await env.sleep('30 minutes'); // parked: nothing new is sent however long it waits
    await waitFor(async () => (await PayoutItem.count({ where: { batchId, status: 'SENDING' } })) === 0, 'in-flight items to finish', 30_000);
    expect([...provider.transfers.keys()].filter((reference) => !claimed.has(reference))).toEqual([]);
    const pending = await PayoutItem.count({ where: { batchId, status: 'PENDING' } });
    expect(pending).toBeGreaterThan(0);
    expect(await PayoutBatch.findByPk(batchId)).toMatchObject({ status: 'PROCESSING' });
    expect(await balance(sequelize, accounts.merchantReserved(merchantId))).toBe(pending * 100);

    await setWithdrawalsFrozen(sequelize, merchantId, false);
    return handle.result();
  });

  expect(outcome).toMatchObject({ status: 'COMPLETED', releasedAmountCents: 0 });
  expect(provider.transfers.size).toBe(ITEMS);
  expect(await PayoutItem.count({ where: { batchId, status: 'PAID' } })).toBe(ITEMS);
  expect(await balance(sequelize, accounts.merchantReserved(merchantId))).toBe(0);
  expect(await balance(sequelize, accounts.merchantAvailable(merchantId))).toBe(100_000 - ITEMS * 100);
  await assertLedgerInvariant(sequelize);
});

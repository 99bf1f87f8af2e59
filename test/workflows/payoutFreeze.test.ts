/**
 * Freezing a merchant stops its payouts at once, on the
 * time-skipping server with the real activities and database: once the freeze has committed no
 * item is sent for the first time, items already sent finish, the batch parks (PROCESSING, unsent
 * items PENDING, their funding reserved) and resumes after the unfreeze.
 */
import { Op } from 'sequelize';
import { accounts } from '../../core/ledger/accounts';
import { setWithdrawalsFrozen } from '../../db/identity/merchantAdmin';
import { PayoutBatch, PayoutItem } from '../../db/models';
import { payoutBatchWorkflowId, reserveBatchUpdate } from '../../workflows/payouts/definitions';
import { FakePixProvider } from '../support/fakePixProvider';
import { waitFor } from '../support/env';
import { assertLedgerInvariant, balance } from '../support/ledger';
import { stagedBatch } from '../support/stagedBatch';
import { useWorkflowEnv } from '../support/workflowEnv';

jest.setTimeout(180_000);

const wf = useWorkflowEnv();

const ITEMS = 500;

it('sends nothing new after the freeze commits, parks, and resumes after the unfreeze', async () => {
  const { merchantId, batchId } = await stagedBatch(wf.sequelize, ITEMS, {
    amountCents: 100,
    name: 'Pagadora Congelada',
  });
  const provider = new FakePixProvider();
  const { worker, taskQueue } = await wf.createWorker(wf.activities(provider), { prefix: 'freeze' });

  const outcome = await worker.runUntil(async () => {
    const handle = await wf.env.client.workflow.start('payoutBatch', {
      taskQueue,
      workflowId: payoutBatchWorkflowId(batchId),
      args: [
        {
          batchId,
          merchantId,
          itemsCount: ITEMS,
          chunkSize: 250,
          parallelChunks: 2,
          itemConcurrency: 5,
          sliceSize: 50,
        },
      ],
    });
    await handle.executeUpdate(reserveBatchUpdate);
    await waitFor(
      async () => (await PayoutItem.count({ where: { batchId, status: 'PAID' } })) >= 40,
      'some items to be paid',
      60_000,
    );

    await setWithdrawalsFrozen(wf.sequelize, merchantId, true);
    // What may still reach the provider: items claimed before the freeze committed.
    const claimed = new Set(
      (await PayoutItem.findAll({ where: { batchId, status: { [Op.ne]: 'PENDING' } }, attributes: ['id'] })).map(
        (i) => i.id,
      ),
    );
    await wf.env.sleep('30 minutes'); // parked: nothing new is sent however long it waits
    await waitFor(
      async () => (await PayoutItem.count({ where: { batchId, status: 'SENDING' } })) === 0,
      'in-flight items to finish',
      90_000,
    );
    expect([...provider.transfers.keys()].filter((reference) => !claimed.has(reference))).toEqual([]);
    const pending = await PayoutItem.count({ where: { batchId, status: 'PENDING' } });
    expect(pending).toBeGreaterThan(0);
    expect(await PayoutBatch.findByPk(batchId)).toMatchObject({ status: 'PROCESSING' });
    expect(await balance(wf.sequelize, accounts.merchantReserved(merchantId))).toBe(pending * 100);

    await setWithdrawalsFrozen(wf.sequelize, merchantId, false);
    return handle.result();
  });

  expect(outcome).toMatchObject({ status: 'COMPLETED', releasedAmountCents: 0 });
  expect(provider.transfers.size).toBe(ITEMS);
  expect(await PayoutItem.count({ where: { batchId, status: 'PAID' } })).toBe(ITEMS);
  expect(await balance(wf.sequelize, accounts.merchantReserved(merchantId))).toBe(0);
  expect(await balance(wf.sequelize, accounts.merchantAvailable(merchantId))).toBe(100_000 - ITEMS * 100);
  await assertLedgerInvariant(wf.sequelize);
});

/**
 * PayoutBatch on the time-skipping server with the real activities and database: a provider
 * that is down for a long time, and one that pays but loses its answers, are waited out with
 * backoff in seconds of real time — and every item is paid exactly once.
 */
import crypto from 'node:crypto';
import { createReconciler } from '../../activities/transfers/repair/reconciler';
import { writeLedgerEntry } from '../../activities/ledger/ledgerWriter';
import { accounts } from '../../core/ledger/accounts';
import { chargePaidEntry } from '../../core/ledger/postings';
import { createMerchantWithCredential } from '../../db/identity/merchantAdmin';
import { PayoutBatch, PayoutItem, Withdrawal } from '../../db/models';
import { payoutBatchWorkflowId, reserveBatchUpdate } from '../../workflows/payouts/definitions';
import { FakePixProvider } from '../support/fakePixProvider';
import { waitFor } from '../support/env';
import { assertLedgerInvariant, balance } from '../support/ledger';
import { stagedBatch as stagedBatchOf } from '../support/stagedBatch';
import { testLogger } from '../support/testLogs';
import { useWorkflowEnv } from '../support/workflowEnv';

jest.setTimeout(120_000);

const wf = useWorkflowEnv();

afterEach(async () => {
  await assertLedgerInvariant(wf.sequelize);
});

const stagedBatch = (n: number) => stagedBatchOf(wf.sequelize, n);

/** One lane, one item at a time: which items are in flight when an operator acts is known. */
const oneAtATime = { chunkSize: 3, parallelChunks: 1, itemConcurrency: 1 };

async function runBatch(
  provider: FakePixProvider,
  batch: { merchantId: string; batchId: string },
  n: number,
  during?: () => Promise<void>,
  shape: { chunkSize: number; parallelChunks: number; itemConcurrency: number; sliceSize?: number } = {
    chunkSize: 2,
    parallelChunks: 2,
    itemConcurrency: 2,
  },
  workflows?: string,
) {
  // The real activities and database; `workflows`: a test-only workflow module instead of the run's bundle.
  return wf.withWorker(
    wf.activities(provider),
    async (taskQueue) => {
      const handle = await wf.env.client.workflow.start('payoutBatch', {
        taskQueue,
        workflowId: payoutBatchWorkflowId(batch.batchId),
        args: [{ batchId: batch.batchId, merchantId: batch.merchantId, itemsCount: n, ...shape }],
      });
      await handle.executeUpdate(reserveBatchUpdate);
      await during?.();
      return handle.result();
    },
    { prefix: 'pb', workflowsPath: workflows },
  );
}

it('waits out a long provider outage with backoff and pays every item once', async () => {
  const provider = new FakePixProvider();
  provider.transientTransferFailures = 60; // hours of retries at up to 2 minutes apart per item
  const batch = await stagedBatch(5);
  const realStart = Date.now();
  const outcome = await runBatch(provider, batch, 5);
  expect(outcome).toMatchObject({ status: 'COMPLETED', releasedAmountCents: 0 });
  // Hours of backoff skipped, not waited: far less real time than the outage (a 60 s bound is a
  // speed goal, and a worker run on a loaded host can take longer).
  expect(Date.now() - realStart).toBeLessThan(30 * 60_000);
  expect(provider.transfers.size).toBe(5);
  const items = await PayoutItem.findAll({ where: { batchId: batch.batchId } });
  expect(items.every((i) => i.status === 'PAID' && i.attempts >= 1)).toBe(true);
  expect(items.reduce((s, i) => s + i.attempts, 0)).toBeGreaterThan(5);
  expect(await balance(wf.sequelize, accounts.merchantReserved(batch.merchantId))).toBe(0);
});

it('a slow transfer does not hold back the rest of its chunk: the other lanes go on sending', async () => {
  // One chunk of 6 items, 2 transfers in flight. The first transfer is held until 3 others have
  // reached the provider: in waves of 2 the chunk would wait for it before sending a third.
  const provider = new FakePixProvider();
  let held: string | null = null;
  let others = 0;
  let heldUntilOthers = false;
  provider.beforeTransfer = async (req) => {
    if (held !== null && held !== req.reference) {
      others++;
      return;
    }
    held = req.reference;
    const gaveUpAt = Date.now() + 10_000;
    while (others < 3 && Date.now() < gaveUpAt) await new Promise((r) => setTimeout(r, 20));
    heldUntilOthers = others >= 3;
  };
  const batch = await stagedBatch(6);
  const outcome = await runBatch(provider, batch, 6, undefined, {
    chunkSize: 6,
    parallelChunks: 1,
    itemConcurrency: 2,
    sliceSize: 6,
  });
  expect(heldUntilOthers).toBe(true);
  expect(outcome).toMatchObject({ status: 'COMPLETED', releasedAmountCents: 0 });
  expect(provider.transfers.size).toBe(6);
  const items = await PayoutItem.findAll({ where: { batchId: batch.batchId } });
  expect(items.map((i) => i.status)).toEqual(Array(6).fill('PAID'));
  expect(await balance(wf.sequelize, accounts.merchantReserved(batch.merchantId))).toBe(0);
});

it('asks the provider, before sending again, when the provider paid but its answer was lost', async () => {
  const provider = new FakePixProvider();
  provider.loseTransferAnswers = true;
  const batch = await stagedBatch(4);
  const outcome = await runBatch(provider, batch, 4, async () => {
    await wf.env.sleep('30 minutes');
    provider.loseTransferAnswers = false;
  });
  expect(outcome.status).toBe('COMPLETED');
  expect(provider.transfers.size).toBe(4); // one transfer per item, however many calls
  expect(provider.transferCalls).toBe(4); // each retry found the transfer by reference instead of sending again
  // This batch's own accounts: the shared database makes global sums vacuous.
  expect(await balance(wf.sequelize, accounts.merchantReserved(batch.merchantId))).toBe(0);
  expect(await balance(wf.sequelize, accounts.merchantAvailable(batch.merchantId))).toBe(100_000 - 4_000);
});

describe('one transfer path: nothing is released while the provider may have paid', () => {
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
    expect(await balance(wf.sequelize, accounts.merchantReserved(batch.merchantId))).toBe(0);
    expect(await balance(wf.sequelize, accounts.merchantAvailable(batch.merchantId))).toBe(100_000 - 1_000);
  });

  it('releases an item the provider has no record of only after the grace period, in our own words', async () => {
    const provider = new FakePixProvider();
    provider.transferScript = ['unauthorized'];
    const batch = await stagedBatch(1);
    const started = await wf.env.currentTimeMs();
    const outcome = await runBatch(provider, batch, 1);
    expect(outcome).toMatchObject({ status: 'FAILED', releasedAmountCents: 0 });
    expect(provider.transfers.size).toBe(0);
    const [item] = await PayoutItem.findAll({ where: { batchId: batch.batchId } });
    expect(item.status).toBe('FAILED');
    expect(item.lastErrorCode).toBe('TRANSFER_NOT_ACCEPTED');
    expect(item.lastError).not.toMatch(/401|API key|sk_live/);
    // The release waited for the grace period (time-skipped) and asked the provider again.
    expect((await wf.env.currentTimeMs()) - started).toBeGreaterThanOrEqual(2 * 60_000);
    expect(await balance(wf.sequelize, accounts.merchantReserved(batch.merchantId))).toBe(0);
    expect(await balance(wf.sequelize, accounts.merchantAvailable(batch.merchantId))).toBe(100_000);
  });

  it('finds a transfer the provider made although it refused a repeated call', async () => {
    const provider = new FakePixProvider();
    provider.transferScript = ['lose', 'rejected'];
    const batch = await stagedBatch(1);
    const outcome = await runBatch(provider, batch, 1);
    expect(outcome.status).toBe('COMPLETED');
    expect(provider.transfers.size).toBe(1);
    expect(await balance(wf.sequelize, accounts.merchantReserved(batch.merchantId))).toBe(0);
  });
});

/** Waits (real time) until an item of the batch is SENDING: a transfer is in flight. */
async function untilSending(batchId: string) {
  for (let i = 0; i < 200; i++) {
    if ((await PayoutItem.count({ where: { batchId, status: 'SENDING' } })) > 0) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('no item became SENDING');
}

describe('operators cannot strand money', () => {
  const reservedOf = (merchantId: string) => balance(wf.sequelize, accounts.merchantReserved(merchantId));
  const fundingOf = async (batchId: string, status: string) =>
    (await PayoutItem.findAll({ where: { batchId, status } })).reduce((s, i) => s + i.amountCents + i.feeCents, 0);

  /** The batch's result, or a clear failure instead of waiting forever on a stranded batch. */
  async function resultWithin<T>(result: Promise<T>, batchId: string, ms = 45_000): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const stuck = new Promise<never>((_, reject) => {
      timer = setTimeout(async () => {
        const batch = await PayoutBatch.findByPk(batchId);
        // End the run so the test's worker stops; the assertion below is what fails.
        await wf.env.client.workflow
          .getHandle(payoutBatchWorkflowId(batchId))
          .terminate('test: batch stranded')
          .catch(() => undefined);
        reject(new Error(`batch still ${batch?.status} after ${ms} ms: its money is stranded`));
      }, ms);
    });
    result.catch(() => undefined);
    try {
      return await Promise.race([result, stuck]);
    } finally {
      clearTimeout(timer);
    }
  }

  const chunk0 = (batchId: string) => wf.env.client.workflow.getHandle(`${payoutBatchWorkflowId(batchId)}-chunk-0`);

  it('a chunk child cancelled in the Web UI counts as a cancel of its unsent items', async () => {
    const provider = new FakePixProvider();
    provider.transientTransferFailures = 3; // the first transfer stays in flight a few seconds
    const batch = await stagedBatch(6);
    const outcome = await resultWithin(
      runBatch(
        provider,
        batch,
        6,
        async () => {
          await untilSending(batch.batchId);
          await chunk0(batch.batchId).cancel();
        },
        oneAtATime,
      ),
      batch.batchId,
    );
    const stored = await PayoutBatch.findByPk(batch.batchId);
    expect(stored?.status).toBe('CANCELLED');
    expect(outcome.status).toBe('CANCELLED');
    // Chunk 0's item in flight (row 0) was paid; its unsent rows 1 and 2 were released, exactly;
    // the other chunk went on and paid its items.
    const items = await PayoutItem.findAll({ where: { batchId: batch.batchId }, order: [['rowIndex', 'ASC']] });
    expect(items.map((i) => i.status)).toEqual(['PAID', 'CANCELLED', 'CANCELLED', 'PAID', 'PAID', 'PAID']);
    expect(outcome.releasedAmountCents).toBe(2_000);
    expect(provider.transfers.size).toBe(4);
    expect(await reservedOf(batch.merchantId)).toBe(0);
    expect(await balance(wf.sequelize, accounts.merchantAvailable(batch.merchantId))).toBe(100_000 - 4_000);
  });

  it('a chunk child that dies with a transfer in flight strands nothing: the provider record settles it, the unsent are released', async () => {
    // The Web UI's terminate of a chunk reaches the batch as the same child failure; the
    // time-skipping server does not report a terminated child to its parent, so the chunk dies here.
    const provider = new FakePixProvider();
    provider.transferScript = ['lose']; // the first transfer is made, its answer lost
    const batch = await stagedBatch(6);
    const outcome = await resultWithin(
      runBatch(provider, batch, 6, undefined, oneAtATime, require.resolve('../support/workflows/failingChunk')),
      batch.batchId,
    );
    const items = await PayoutItem.findAll({ where: { batchId: batch.batchId }, order: [['rowIndex', 'ASC']] });
    // Row 0 was SENDING when its chunk died: after TRANSFER_GRACE the provider's record settled
    // it PAID. No chunk starts after a failure: rows 1–5 were never sent and are released once.
    expect(items.map((i) => i.status)).toEqual([
      'PAID',
      'CANCELLED',
      'CANCELLED',
      'CANCELLED',
      'CANCELLED',
      'CANCELLED',
    ]);
    expect(provider.transfers.size).toBe(1);
    expect(outcome).toMatchObject({ status: 'CANCELLED', releasedAmountCents: 5_000 });
    expect(await PayoutBatch.findByPk(batch.batchId)).toMatchObject({ status: 'CANCELLED' });
    expect(await reservedOf(batch.merchantId)).toBe(0);
    expect(await balance(wf.sequelize, accounts.merchantAvailable(batch.merchantId))).toBe(100_000 - 1_000);
  });

  it('finishBatch reads the cancel intent from the database, not from its arguments', async () => {
    const acts = wf.activities(new FakePixProvider());
    const batch = await stagedBatch(2);
    await acts.reserveBatch({ batchId: batch.batchId });
    // The cancel route recorded its intent after finishBatch was scheduled with no reason.
    await PayoutBatch.update({ cancelReason: 'pagamento duplicado' }, { where: { id: batch.batchId } });
    const finished = await acts.finishBatch({ batchId: batch.batchId, cancelReason: null });
    expect(finished).toEqual({ status: 'CANCELLED', releasedAmountCents: 2_000 });
    expect((await PayoutBatch.findByPk(batch.batchId))?.cancelReason).toBe('pagamento duplicado');
    expect(await reservedOf(batch.merchantId)).toBe(0);
  });

  it('a batch cancelled in the Web UI releases the unsent items and its run ends Cancelled', async () => {
    const provider = new FakePixProvider();
    provider.transientTransferFailures = 3;
    const batch = await stagedBatch(6);
    const result = runBatch(
      provider,
      batch,
      6,
      async () => {
        await untilSending(batch.batchId);
        await wf.env.client.workflow.getHandle(payoutBatchWorkflowId(batch.batchId)).cancel();
      },
      oneAtATime,
    );
    await expect(result).rejects.toMatchObject({ cause: { name: 'CancelledFailure' } });
    const stored = await PayoutBatch.findByPk(batch.batchId);
    expect(stored?.status).toBe('CANCELLED');
    expect(stored?.releasedAmountCents).toBe(await fundingOf(batch.batchId, 'CANCELLED'));
    expect(await reservedOf(batch.merchantId)).toBe(0);
  });
  it('a cancel in the Web UI stops a large slice within seconds: no new wave after it, the unsent released exactly', async () => {
    // One chunk, one call for all its items: only the call's time budget lets the cancel in.
    const provider = new FakePixProvider();
    provider.transferDelayMs = 25;
    const n = 800; // 5 s of transfers at this pace: a slice paid to its end would leave nothing to cancel
    const batch = await stagedBatchOf(wf.sequelize, n, { amountCents: 100 });
    const result = runBatch(
      provider,
      batch,
      n,
      async () => {
        await waitFor(
          async () => (await PayoutItem.count({ where: { batchId: batch.batchId, status: 'PAID' } })) >= 20,
          'some items paid',
          90_000,
        );
        await wf.env.client.workflow.getHandle(payoutBatchWorkflowId(batch.batchId)).cancel();
      },
      { chunkSize: n, parallelChunks: 1, itemConcurrency: 4, sliceSize: n },
    );
    await expect(resultWithin(result, batch.batchId, 60_000)).rejects.toMatchObject({
      cause: { name: 'CancelledFailure' },
    });
    const items = await PayoutItem.findAll({ where: { batchId: batch.batchId } });
    const paid = items.filter((i) => i.status === 'PAID').length;
    const cancelled = items.filter((i) => i.status === 'CANCELLED').length;
    expect(paid + cancelled).toBe(n); // nothing SENDING, PENDING or FAILED is left
    expect(cancelled).toBeGreaterThan(0);
    expect(provider.transfers.size).toBe(paid); // every transfer made is a paid item, once
    const stored = await PayoutBatch.findByPk(batch.batchId);
    expect(stored?.status).toBe('CANCELLED');
    expect(stored?.releasedAmountCents).toBe(await fundingOf(batch.batchId, 'CANCELLED'));
    expect(await reservedOf(batch.merchantId)).toBe(0);
    expect(await balance(wf.sequelize, accounts.merchantAvailable(batch.merchantId))).toBe(100_000 - paid * 100);
  });
});

describe('repair after a terminate: reconcile and the janitor', () => {
  const reservedOf = (merchantId: string) => balance(wf.sequelize, accounts.merchantReserved(merchantId));

  async function runJanitor(provider: FakePixProvider) {
    return wf.withWorker(
      wf.activities(provider),
      (taskQueue) =>
        wf.env.client.workflow.execute('janitor', { taskQueue, workflowId: `janitor-${crypto.randomUUID()}` }),
      { prefix: 'janitor' },
    );
  }

  /** Makes the rows look claimed longer ago than TRANSFER_GRACE (the database clock does not skip). */
  const ageRows = (table: 'payout_items' | 'withdrawals', where: string, id: string) =>
    wf.sequelize.query(`UPDATE ${table} SET updated_at = now() - interval '3 minutes' WHERE ${where} = :id`, {
      replacements: { id },
    });

  it('a terminated batch: reconcile refuses while it runs; the janitor settles the sent item by the provider record and releases the unsent', async () => {
    const provider = new FakePixProvider();
    provider.transientTransferFailures = 1_000; // the provider is down: row 0 stays SENDING
    const batch = await stagedBatch(6);
    const reconciler = createReconciler({ sequelize: wf.sequelize, provider, logger: testLogger('reconciler-test') });
    const ended = runBatch(
      provider,
      batch,
      6,
      async () => {
        await untilSending(batch.batchId);
        await expect(
          reconciler.reconcileStopped(wf.env.client, { kind: 'payout-batch', id: batch.batchId }),
        ).rejects.toThrow(/still running: cancel it instead/);
        await wf.env.client.workflow
          .getHandle(payoutBatchWorkflowId(batch.batchId))
          .terminate('operator terminated the batch');
      },
      oneAtATime,
    );
    await expect(ended).rejects.toThrow();
    expect((await PayoutBatch.findByPk(batch.batchId))?.status).toBe('PROCESSING');
    expect(await reservedOf(batch.merchantId)).toBe(6_000);

    // The provider did make row 0's transfer (its answer was lost): the record settles it PAID.
    provider.transientTransferFailures = 0;
    const row0 = await PayoutItem.findOne({ where: { batchId: batch.batchId, rowIndex: 0 } });
    await provider.transfer({
      reference: row0!.id,
      amountCents: 1_000,
      pixKey: row0!.pixKey,
      pixKeyType: 'EMAIL',
      recipientName: row0!.recipientName,
      recipientDocument: null,
    });
    const result = await runJanitor(provider);
    expect(result.reconciled).toContainEqual(
      expect.objectContaining({
        id: batch.batchId,
        status: 'CANCELLED',
        paid: 1,
        waiting: 0,
        releasedAmountCents: 5_000,
      }),
    );
    const items = await PayoutItem.findAll({ where: { batchId: batch.batchId }, order: [['rowIndex', 'ASC']] });
    expect(items.map((i) => i.status)).toEqual([
      'PAID',
      'CANCELLED',
      'CANCELLED',
      'CANCELLED',
      'CANCELLED',
      'CANCELLED',
    ]);
    expect(await reservedOf(batch.merchantId)).toBe(0);
    expect(await balance(wf.sequelize, accounts.merchantAvailable(batch.merchantId))).toBe(100_000 - 1_000);
  });

  it('a sent item with no provider record is released only after TRANSFER_GRACE since its claim', async () => {
    const provider = new FakePixProvider();
    provider.transientTransferFailures = 1_000;
    const batch = await stagedBatch(3);
    await expect(
      runBatch(
        provider,
        batch,
        3,
        async () => {
          await untilSending(batch.batchId);
          await wf.env.client.workflow
            .getHandle(payoutBatchWorkflowId(batch.batchId))
            .terminate('operator terminated the batch');
        },
        oneAtATime,
      ),
    ).rejects.toThrow();
    const reconciler = createReconciler({ sequelize: wf.sequelize, provider, logger: testLogger('reconciler-test') });
    const early = await reconciler.reconcileStopped(wf.env.client, { kind: 'payout-batch', id: batch.batchId });
    expect(early).toMatchObject({ status: 'PROCESSING', waiting: 1, released: 0 });
    expect(await reservedOf(batch.merchantId)).toBe(3_000);
    await ageRows('payout_items', 'batch_id', batch.batchId);
    const late = await reconciler.reconcileStopped(wf.env.client, { kind: 'payout-batch', id: batch.batchId });
    expect(late).toMatchObject({ status: 'CANCELLED', released: 1, waiting: 0, releasedAmountCents: 2_000 });
    expect(await reservedOf(batch.merchantId)).toBe(0);
    expect(await balance(wf.sequelize, accounts.merchantAvailable(batch.merchantId))).toBe(100_000);
  });

  it('a withdrawal left PROCESSING without its workflow: completed by the provider record, or released after the grace period', async () => {
    const provider = new FakePixProvider();
    const acts = wf.activities(provider);
    const reconciler = createReconciler({ sequelize: wf.sequelize, provider, logger: testLogger('reconciler-test') });
    const { merchantId } = await createMerchantWithCredential(
      wf.sequelize,
      {
        name: 'Sacadora',
        payoutsEnabled: true,
        document: '11144477735',
        pixKey: 'saque@example.com',
        pixKeyType: 'EMAIL',
      },
      crypto.randomBytes(32).toString('hex'),
    );
    await wf.sequelize.transaction((t) =>
      writeLedgerEntry(
        wf.sequelize,
        chargePaidEntry({ chargeId: crypto.randomUUID(), merchantId, amountCents: 100_000, feeCents: 0, splits: [] }),
        t,
      ),
    );
    const reserve = (amountCents: number) =>
      acts.reserveWithdrawal({
        withdrawalId: crypto.randomUUID(),
        merchantId,
        userId: null,
        amountCents,
        description: null,
        idempotencyKey: crypto.randomUUID(),
      });
    const paid = await reserve(10_000);
    const unsent = await reserve(20_000);
    // The provider made the first transfer; it never heard of the second.
    await provider.transfer({
      reference: paid.withdrawalId,
      amountCents: 10_000,
      pixKey: 'saque@example.com',
      pixKeyType: 'EMAIL',
      recipientName: 'Sacadora',
      recipientDocument: null,
    });

    expect(
      await reconciler.reconcileStopped(wf.env.client, { kind: 'withdrawal', id: paid.withdrawalId }),
    ).toMatchObject({ status: 'COMPLETED', paid: 1 });
    expect(
      await reconciler.reconcileStopped(wf.env.client, { kind: 'withdrawal', id: unsent.withdrawalId }),
    ).toMatchObject({ status: 'PROCESSING', waiting: 1 });
    await ageRows('withdrawals', 'id', unsent.withdrawalId);
    expect(
      await reconciler.reconcileStopped(wf.env.client, { kind: 'withdrawal', id: unsent.withdrawalId }),
    ).toMatchObject({ status: 'FAILED', released: 1 });
    expect((await Withdrawal.findByPk(unsent.withdrawalId))?.failureCode).toBe('NOT_PROCESSED');
    expect(await reservedOf(merchantId)).toBe(0);
    expect(await balance(wf.sequelize, accounts.merchantAvailable(merchantId))).toBe(100_000 - paid.totalDebitedCents);
  });
});

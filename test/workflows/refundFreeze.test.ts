/**
 * Refunds obey the merchant's state, on the time-skipping server with the real
 * activities and database (the provider is an in-memory fake, outside the system):
 * - a freeze that commits between the API's check and the reservation is seen under the
 *   merchant row's lock: the request is refused, nothing is stored or reserved;
 * - a refund reserved before the freeze committed is parked, not sent, however long the freeze
 *   lasts, and goes out once the merchant is unfrozen;
 * - an operator's cancel of a parked refund releases its shares after the grace period (the
 *   provider has no record), and nothing is ever sent.
 * The ledger invariant holds after each.
 */
import crypto from 'node:crypto';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { updateWithStartOrJoin } from '../../core/temporal/updateWithStart';
import { writeLedgerEntry } from '../../activities/ledger/ledgerWriter';
import { accounts } from '../../core/ledger/accounts';
import { chargePaidEntry } from '../../core/ledger/postings';
import { createMerchantWithCredential, setWithdrawalsFrozen } from '../../db/identity/merchantAdmin';
import { Charge, Refund } from '../../db/models';
import {
  refundLifecycleWorkflow,
  refundStatusQuery,
  refundWorkflowId,
  requestRefundUpdate,
} from '../../workflows/refunds/definitions';
import { RefundFailureTypes, type RefundInput } from '../../workflows/refunds/types';
import { FakePixProvider } from '../support/fakePixProvider';
import { waitFor } from '../support/env';
import { assertLedgerInvariant, balance } from '../support/ledger';
import { useWorkflowEnv } from '../support/workflowEnv';

jest.setTimeout(180_000);

const wf = useWorkflowEnv();

afterEach(async () => {
  await assertLedgerInvariant(wf.sequelize);
});

/** A merchant with a paid Pix charge of 10,000 cents (no fee) credited to its available balance. */
async function paidCharge(): Promise<{ merchantId: string; chargeId: string }> {
  const { merchantId } = await createMerchantWithCredential(
    wf.sequelize,
    { name: 'Loja Congelada' },
    crypto.randomBytes(32).toString('hex'),
  );
  const chargeId = crypto.randomUUID();
  await Charge.create({
    id: chargeId,
    merchantId,
    amountCents: 10_000,
    feeCents: 0,
    status: 'PAID',
    description: null,
    externalRef: null,
    metadata: null,
    pix: null,
    payerSnapshot: null,
    providerChargeId: null,
    pixTxid: null,
    endToEndId: `E99999999202611250000${crypto.randomBytes(8).toString('hex').slice(0, 11)}`,
    idempotencyKey: null,
    expiresAt: new Date(Date.now() + 3_600_000),
    paidAt: new Date(),
    expiredAt: null,
    cancelledAt: null,
  });
  await wf.sequelize.transaction((t) =>
    writeLedgerEntry(
      wf.sequelize,
      chargePaidEntry({ chargeId, merchantId, amountCents: 10_000, feeCents: 0, splits: [] }),
      t,
    ),
  );
  return { merchantId, chargeId };
}

const refundInput = (chargeId: string, amountCents: number): RefundInput => ({
  refundId: crypto.randomUUID(),
  chargeId,
  amountCents,
  reason: 'teste',
  idempotencyKey: null,
  requestedBy: null,
});

/** Runs the real activities; `afterReserve` runs once the reservation has committed, before anything is sent. */
async function withWorker<T>(
  provider: FakePixProvider,
  hooks: { beforeReserve?: () => Promise<void>; afterReserve?: () => Promise<void> },
  fn: (taskQueue: string) => Promise<T>,
): Promise<T> {
  const activities = wf.activities(provider);
  return wf.withWorker(
    {
      ...activities,
      reserveRefund: async (input: RefundInput) => {
        await hooks.beforeReserve?.();
        const reserved = await activities.reserveRefund(input);
        await hooks.afterReserve?.();
        return reserved;
      },
    },
    fn,
    { prefix: 'refund-freeze' },
  );
}

/** What POST /charges/{id}/refund does: Update-With-Start; resolves with the reservation or rejects with the refusal. */
function request(taskQueue: string, input: RefundInput, merchantId: string): Promise<unknown> {
  return updateWithStartOrJoin(wf.env.client, refundLifecycleWorkflow, requestRefundUpdate, {
    workflowId: refundWorkflowId(input.refundId),
    taskQueue,
    args: [input],
    merchantId,
    initialStatus: 'RESERVING',
  });
}

it('a freeze that commits after the API check is seen under the merchant lock: refused, nothing stored or reserved', async () => {
  const { merchantId, chargeId } = await paidCharge();
  const provider = new FakePixProvider();
  const input = refundInput(chargeId, 4_000);
  const refused = await withWorker(
    provider,
    { beforeReserve: () => setWithdrawalsFrozen(wf.sequelize, merchantId, true) },
    async (taskQueue) => {
      return request(taskQueue, input, merchantId).catch((err: unknown) => err);
    },
  );
  expect(refused).toBeInstanceOf(WorkflowUpdateFailedError);
  expect((refused as WorkflowUpdateFailedError).cause).toMatchObject({ type: RefundFailureTypes.merchantFrozen });
  expect(await Refund.findByPk(input.refundId)).toBeNull();
  expect(await balance(wf.sequelize, accounts.merchantAvailable(merchantId))).toBe(10_000);
  expect(provider.transfers.size).toBe(0);
});

it('a refund reserved before the freeze is parked, not sent, however long it lasts; it goes out after the unfreeze', async () => {
  const { merchantId, chargeId } = await paidCharge();
  const provider = new FakePixProvider();
  const input = refundInput(chargeId, 4_000);
  const outcome = await withWorker(
    provider,
    { afterReserve: () => setWithdrawalsFrozen(wf.sequelize, merchantId, true) },
    async (taskQueue) => {
      expect(await request(taskQueue, input, merchantId)).toMatchObject({ status: 'PROCESSING' });
      const handle = wf.env.client.workflow.getHandle(refundWorkflowId(input.refundId));
      await waitFor(async () => (await handle.query(refundStatusQuery)) === 'PARKED', 'the refund to park');
      await wf.env.sleep('3 hours');
      expect(provider.transfers.size).toBe(0);
      expect(await Refund.findByPk(input.refundId)).toMatchObject({ status: 'PROCESSING' });
      expect(await balance(wf.sequelize, accounts.merchantReserved(merchantId))).toBe(4_000);
      await setWithdrawalsFrozen(wf.sequelize, merchantId, false);
      return handle.result();
    },
  );
  expect(outcome).toMatchObject({ status: 'SUCCEEDED' });
  expect([...provider.transfers.keys()]).toEqual([input.refundId]);
  expect(await balance(wf.sequelize, accounts.merchantReserved(merchantId))).toBe(0);
  expect(await balance(wf.sequelize, accounts.merchantAvailable(merchantId))).toBe(6_000);
});

it("an operator's cancel of a parked refund releases its shares after the grace period; nothing is sent", async () => {
  const { merchantId, chargeId } = await paidCharge();
  const provider = new FakePixProvider();
  const input = refundInput(chargeId, 2_500);
  const outcome = await withWorker(
    provider,
    { afterReserve: () => setWithdrawalsFrozen(wf.sequelize, merchantId, true) },
    async (taskQueue) => {
      await request(taskQueue, input, merchantId);
      const handle = wf.env.client.workflow.getHandle(refundWorkflowId(input.refundId));
      await waitFor(async () => (await handle.query(refundStatusQuery)) === 'PARKED', 'the refund to park');
      await handle.cancel();
      return handle.result();
    },
  );
  expect(outcome).toMatchObject({ status: 'FAILED' });
  expect(await Refund.findByPk(input.refundId)).toMatchObject({
    status: 'FAILED',
    failureCode: 'CANCELLED',
    failureReason: 'cancelled before the transfer was sent',
  });
  expect(provider.transfers.size).toBe(0);
  expect(provider.lookupCalls).toBeGreaterThan(0);
  expect(await balance(wf.sequelize, accounts.merchantReserved(merchantId))).toBe(0);
  expect(await balance(wf.sequelize, accounts.merchantAvailable(merchantId))).toBe(10_000);
});

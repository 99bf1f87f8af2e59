/**
 * A charge's events go out right after their commit, without the outbox dispatcher and without a
 * workflow: the settling transaction writes the event and its delivery (leased to this worker),
 * and the worker makes the first attempt itself once it commits. No dispatcher runs on this task
 * queue, so the receiver hearing of the payment proves the direct path. A delivery whose first
 * attempt fails gets its WebhookDelivery workflow, which reads attempt 1 as recorded and retries.
 * The dispatcher's sweep leaves a leased delivery alone until its lease expires.
 */
import crypto from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { WorkflowNotFoundError } from '@temporalio/client';
import { verifyWebhook } from '../../core/events/signature';
import { createMerchantWithCredential } from '../../db/identity/merchantAdmin';
import { chargeWorkflowId, issueChargeUpdate, paymentConfirmedSignal } from '../../workflows/charges/definitions';
import type { ChargeLifecycleInput } from '../../workflows/charges/types';
import { deliveryWorkflowId, dispatcherWorkflowId } from '../../workflows/events/definitions';
import { deliveryStore, outboxStore } from '../../db/events';
import { FakePixProvider } from '../support/fakePixProvider';
import { createTestEndpoint } from '../support/webhookEndpoints';
import { waitFor } from '../support/env';
import { assertLedgerInvariant } from '../support/ledger';
import { startReceiver, type Receiver } from '../support/receiver';
import { useWorkflowEnv } from '../support/workflowEnv';

jest.setTimeout(120_000);

const key = crypto.randomBytes(32);
const wf = useWorkflowEnv();
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
});

afterAll(async () => {
  await receiver?.close();
});

afterEach(async () => {
  await assertLedgerInvariant(wf.sequelize);
});

async function payCharge(merchantId: string, provider: FakePixProvider, taskQueue: string): Promise<string> {
  const chargeId = crypto.randomUUID();
  const input: ChargeLifecycleInput = {
    chargeId,
    merchantId,
    amountCents: 4_200,
    feeCents: 42,
    description: null,
    externalRef: null,
    metadata: null,
    splits: [],
    expiresAt: new Date((await wf.env.currentTimeMs()) + 30 * 60_000).toISOString(),
    idempotencyKey: null,
    webhook: null,
  };
  const handle = await wf.env.client.workflow.start('chargeLifecycle', {
    taskQueue,
    workflowId: chargeWorkflowId(chargeId),
    args: [input],
  });
  const issued = await handle.executeUpdate(issueChargeUpdate);
  const paid = provider.markPaid(issued.providerChargeId);
  await handle.signal(paymentConfirmedSignal, {
    providerChargeId: paid.id,
    endToEndId: paid.endToEndId!,
    amountCents: paid.amountCents,
    paidAt: paid.paidAt!,
    payer: paid.payer,
  });
  expect((await handle.result()).status).toBe('PAID');
  return chargeId;
}

async function paidDelivery(chargeId: string) {
  const [row] = await wf.sequelize.query<{
    id: string;
    dispatched: boolean;
    status: string;
    workflow_started: boolean;
    attempts: number;
    leased: boolean;
  }>(
    `SELECT d.id, o.dispatched_at IS NOT NULL AS dispatched, d.status, d.workflow_started, d.attempts,
       d.lease_expires_at IS NOT NULL AS leased
     FROM outbox_events o JOIN webhook_deliveries d ON d.event_id = o.id WHERE o.aggregate_id = :chargeId AND o.type = 'charge.paid'`,
    { replacements: { chargeId }, type: QueryTypes.SELECT },
  );
  return row;
}

it('delivers charge.paid straight from the settle commit, with no dispatcher and no delivery workflow', async () => {
  const { merchantId } = await createMerchantWithCredential(wf.sequelize, { name: 'Loja Direta' }, key.toString('hex'));
  await createTestEndpoint({
    merchantId,
    url: `${receiver.url}/direct`,
    events: ['charge.paid'],
    key,
    secret: 'whsec_direct',
  });
  const provider = new FakePixProvider();
  const { worker, taskQueue } = await wf.createWorker(
    wf.activities(provider, { secretsKey: key, allowPrivateDestinations: true }),
    { prefix: 'direct' },
  );
  const chargeId = await worker.runUntil(async () => {
    const id = await payCharge(merchantId, provider, taskQueue);
    await waitFor(async () => receiver.received.some((r) => r.path === '/direct'), 'charge.paid at the receiver');
    await waitFor(async () => (await paidDelivery(id))?.status === 'SUCCEEDED', 'the attempt recorded');
    return id;
  });

  const got = receiver.received.filter((r) => r.path === '/direct');
  expect(got).toHaveLength(1);
  const event = JSON.parse(got[0].rawBody) as { type: string; data: { id: string; status: string } };
  expect(event).toMatchObject({ type: 'charge.paid', data: { id: chargeId, status: 'PAID' } });
  expect(
    verifyWebhook(
      got[0].rawBody,
      got[0].headers['gateway-signature'] as string,
      'whsec_direct',
      Math.floor(Date.now() / 1000),
    ),
  ).toBe(true);

  // Nothing was left for a dispatcher, none ran, and the delivery needed no workflow.
  await expect(wf.env.client.workflow.getHandle(dispatcherWorkflowId(taskQueue)).describe()).rejects.toBeInstanceOf(
    WorkflowNotFoundError,
  );
  const row = await paidDelivery(chargeId);
  expect(row).toMatchObject({
    dispatched: true,
    status: 'SUCCEEDED',
    workflow_started: false,
    attempts: 1,
    leased: true,
  });
  await expect(wf.env.client.workflow.getHandle(deliveryWorkflowId(row.id)).describe()).rejects.toBeInstanceOf(
    WorkflowNotFoundError,
  );
  const attempts = await wf.sequelize.query<{ attempt: number; success: boolean; status_code: number }>(
    `SELECT attempt, success, status_code FROM webhook_delivery_attempts WHERE delivery_id = :id`,
    { replacements: { id: row.id }, type: QueryTypes.SELECT },
  );
  expect(attempts).toEqual([{ attempt: 1, success: true, status_code: 200 }]);
});

it('starts the delivery workflow only when the first attempt fails; it retries on the schedule', async () => {
  const { merchantId } = await createMerchantWithCredential(wf.sequelize, { name: 'Loja Falha' }, key.toString('hex'));
  await createTestEndpoint({ merchantId, url: `${receiver.url}/failing`, events: ['charge.paid'], key });
  const provider = new FakePixProvider();
  const { worker, taskQueue } = await wf.createWorker(
    wf.activities(provider, { secretsKey: key, allowPrivateDestinations: true }),
    { prefix: 'direct-fail' },
  );
  receiver.status = 500;
  try {
    await worker.runUntil(async () => {
      const chargeId = await payCharge(merchantId, provider, taskQueue);
      await waitFor(async () => (await paidDelivery(chargeId))?.workflow_started === true, 'the delivery workflow');
      const failed = await paidDelivery(chargeId);
      expect(failed).toMatchObject({ status: 'PENDING', attempts: 1 });
      receiver.status = 200;
      // The workflow read attempt 1 as recorded (no second request for it) and retried 10 s later.
      expect(await wf.env.client.workflow.getHandle(deliveryWorkflowId(failed.id)).result()).toBe('SUCCEEDED');
      const attempts = await wf.sequelize.query<{ attempt: number; success: boolean; status_code: number }>(
        `SELECT attempt, success, status_code FROM webhook_delivery_attempts WHERE delivery_id = :id ORDER BY attempt`,
        { replacements: { id: failed.id }, type: QueryTypes.SELECT },
      );
      expect(attempts).toEqual([
        { attempt: 1, success: false, status_code: 500 },
        { attempt: 2, success: true, status_code: 200 },
      ]);
      expect(receiver.received.filter((r) => r.path === '/failing')).toHaveLength(2);
      expect(await paidDelivery(chargeId)).toMatchObject({ status: 'SUCCEEDED', attempts: 2 });
    });
  } finally {
    receiver.status = 200;
  }
});

it("the dispatcher's sweep leaves a leased delivery alone until its lease expires", async () => {
  const { merchantId } = await createMerchantWithCredential(wf.sequelize, { name: 'Loja Lease' }, key.toString('hex'));
  await createTestEndpoint({ merchantId, url: `${receiver.url}/leased`, events: ['charge.paid'], key });
  const aggregateId = crypto.randomUUID();
  const [delivery] = await wf.sequelize.transaction((transaction) =>
    outboxStore.insertEvents(
      wf.sequelize,
      [
        {
          id: crypto.randomUUID(),
          dedupKey: `charge.paid:${aggregateId}`,
          merchantId,
          type: 'charge.paid',
          aggregateType: 'charge',
          aggregateId,
          payload: { id: aggregateId, status: 'PAID' },
        },
      ],
      { leaseSeconds: 60 },
      transaction,
    ),
  );
  expect(delivery.merchantId).toBe(merchantId);
  const swept = async () => (await deliveryStore.withoutWorkflow(wf.sequelize)).some((d) => d.id === delivery.id);
  expect(await swept()).toBe(false);
  // The committing worker died before sending: its lease runs out and the sweep takes over.
  await wf.sequelize.query(
    `UPDATE webhook_deliveries SET lease_expires_at = now() - interval '1 second' WHERE id = :id`,
    { replacements: { id: delivery.id } },
  );
  expect(await swept()).toBe(true);
  // Settled by the sweep's workflow (no worker here): the row leaves the sweep once it is not PENDING.
  await wf.sequelize.query(`UPDATE webhook_deliveries SET status = 'CANCELLED' WHERE id = :id`, {
    replacements: { id: delivery.id },
  });
  expect(await swept()).toBe(false);
});

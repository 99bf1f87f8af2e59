/**
 * A charge's events go out right after their commit, without the outbox dispatcher: the settling
 * activity turns its few events into deliveries and starts their workflows itself, and the first
 * attempt runs in the delivery run's first workflow task. No dispatcher runs on this task queue,
 * so the receiver hearing of the payment proves the direct path; the outbox row is dispatched and
 * the delivery's workflow recorded as started, as the dispatcher would have left them.
 */
import crypto from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { WorkflowNotFoundError } from '@temporalio/client';
import { verifyWebhook } from '../../core/events/signature';
import { createMerchantWithCredential } from '../../db/identity/merchantAdmin';
import { chargeWorkflowId, issueChargeUpdate, paymentConfirmedSignal } from '../../workflows/charges/definitions';
import type { ChargeLifecycleInput } from '../../workflows/charges/types';
import { deliveryWorkflowId, dispatcherWorkflowId } from '../../workflows/events/definitions';
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

it('delivers charge.paid straight from the settle commit, with no dispatcher running', async () => {
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
  await worker.runUntil(async () => {
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
    await waitFor(async () => receiver.received.some((r) => r.path === '/direct'), 'charge.paid at the receiver');
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

  // Nothing was left for a dispatcher, and none ran.
  await expect(wf.env.client.workflow.getHandle(dispatcherWorkflowId(taskQueue)).describe()).rejects.toBeInstanceOf(
    WorkflowNotFoundError,
  );
  const [row] = await wf.sequelize.query<{
    id: string;
    dispatched: boolean;
    status: string;
    workflow_started: boolean;
    attempts: number;
  }>(
    `SELECT d.id, o.dispatched_at IS NOT NULL AS dispatched, d.status, d.workflow_started, d.attempts
     FROM outbox_events o JOIN webhook_deliveries d ON d.event_id = o.id WHERE o.aggregate_id = :chargeId AND o.type = 'charge.paid'`,
    { replacements: { chargeId }, type: QueryTypes.SELECT },
  );
  expect(row).toMatchObject({ dispatched: true, status: 'SUCCEEDED', workflow_started: true, attempts: 1 });
  expect(await wf.env.client.workflow.getHandle(deliveryWorkflowId(row.id)).result()).toBe('SUCCEEDED');
});

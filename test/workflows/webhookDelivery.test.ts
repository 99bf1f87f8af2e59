/**
 * WebhookDelivery on the time-skipping server, with the real activities, the real database and a
 * real local receiver: hours of retry backoff run in seconds.
 */
import crypto from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { retryOffsetsMs } from '../../core/events/retrySchedule';
import { createMerchantWithCredential } from '../../db/identity/merchantAdmin';
import { WebhookEndpoint } from '../../db/models';
import { deliveryWorkflowId } from '../../workflows/events/definitions';
import { startReceiver, type Receiver } from '../support/receiver';
import { createTestEndpoint } from '../support/webhookEndpoints';
import { useWorkflowEnv } from '../support/workflowEnv';

jest.setTimeout(120_000);

const key = crypto.randomBytes(32);
const wf = useWorkflowEnv();
let merchantId: string;
let receiver: Receiver;

beforeAll(async () => {
  ({ merchantId } = await createMerchantWithCredential(wf.sequelize, { name: 'Loja Webhooks' }, key.toString('hex')));
  receiver = await startReceiver();
});

afterAll(async () => {
  await receiver?.close();
});

/** One endpoint, one event, one delivery row: what the dispatcher would have made. */
async function delivery(path: string): Promise<{ deliveryId: string; webhookId: string; eventId: string }> {
  const webhookId = crypto.randomUUID();
  const eventId = crypto.randomUUID();
  const deliveryId = crypto.randomUUID();
  await createTestEndpoint({ id: webhookId, merchantId, url: `${receiver.url}${path}`, events: ['charge.paid'], key });
  const body = JSON.stringify({
    eventId,
    type: 'charge.paid',
    createdAt: new Date().toISOString(),
    data: { id: 'c1', status: 'PAID' },
  });
  await wf.sequelize.query(
    `INSERT INTO outbox_events (id, dedup_key, merchant_id, type, aggregate_type, aggregate_id, payload, dispatched_at) VALUES (:eventId, :dedup, :merchantId, 'charge.paid', 'charge', :agg, '{}', now())`,
    { replacements: { eventId, dedup: `charge.paid:${eventId}`, merchantId, agg: eventId } },
  );
  await wf.sequelize.query(
    `INSERT INTO webhook_deliveries (id, event_id, webhook_id, merchant_id, event_type, url, body, status, workflow_started) VALUES (:deliveryId, :eventId, :webhookId, :merchantId, 'charge.paid', :url, :body, 'PENDING', TRUE)`,
    { replacements: { deliveryId, eventId, webhookId, merchantId, url: `${receiver.url}${path}`, body } },
  );
  return { deliveryId, webhookId, eventId };
}

async function attempts(deliveryId: string) {
  return wf.sequelize.query<{ attempt: number; status_code: number | null; success: boolean }>(
    `SELECT attempt, status_code, success FROM webhook_delivery_attempts WHERE delivery_id = :deliveryId ORDER BY attempt`,
    { replacements: { deliveryId }, type: QueryTypes.SELECT },
  );
}

async function withWorker<T>(fn: (taskQueue: string) => Promise<T>): Promise<T> {
  return wf.withWorker(wf.activities(undefined, { secretsKey: key, allowPrivateDestinations: true }), fn, {
    prefix: 'wh',
  });
}

it('delivers to a receiver that was down for 6 hours once it is back, recording every failed attempt', async () => {
  const d = await delivery('/down-6h');
  receiver.status = 503;
  const result = await withWorker(async (taskQueue) => {
    const handle = await wf.env.client.workflow.start('webhookDelivery', {
      taskQueue,
      workflowId: deliveryWorkflowId(d.deliveryId),
      args: [{ deliveryId: d.deliveryId }],
    });
    await wf.env.sleep('6 hours');
    receiver.status = 200;
    return handle.result();
  });
  expect(result).toBe('SUCCEEDED');
  const log = await attempts(d.deliveryId);
  const failedBefore6h = retryOffsetsMs().filter((o) => o < 6 * 3_600_000).length;
  expect(log.filter((a) => !a.success)).toHaveLength(failedBefore6h);
  expect(log.filter((a) => !a.success).every((a) => a.status_code === 503)).toBe(true);
  expect(log[log.length - 1]).toMatchObject({ success: true, status_code: 200 });
  const hits = receiver.received.filter((r) => r.path === '/down-6h');
  expect(new Set(hits.map((h) => h.headers['gateway-event-id']))).toEqual(new Set([d.eventId]));
  expect(hits.map((h) => Number(h.headers['gateway-delivery-attempt']))).toEqual(log.map((a) => a.attempt));
  const [row] = await wf.sequelize.query<{ status: string }>(`SELECT status FROM webhook_deliveries WHERE id = :id`, {
    replacements: { id: d.deliveryId },
    type: QueryTypes.SELECT,
  });
  expect(row.status).toBe('SUCCEEDED');
});

it('ends FAILED after 3 days of non-2xx answers, at the documented attempt count, and disables the endpoint', async () => {
  const d = await delivery('/never');
  receiver.status = 500;
  const result = await withWorker(async (taskQueue) => {
    const handle = await wf.env.client.workflow.start('webhookDelivery', {
      taskQueue,
      workflowId: deliveryWorkflowId(d.deliveryId),
      args: [{ deliveryId: d.deliveryId }],
    });
    return handle.result();
  });
  receiver.status = 200;
  expect(result).toBe('FAILED');
  expect(await attempts(d.deliveryId)).toHaveLength(retryOffsetsMs().length);
  expect(retryOffsetsMs().length).toBeGreaterThanOrEqual(15);
  const [row] = await wf.sequelize.query<{ status: string }>(`SELECT status FROM webhook_deliveries WHERE id = :id`, {
    replacements: { id: d.deliveryId },
    type: QueryTypes.SELECT,
  });
  expect(row.status).toBe('FAILED');
  const endpoint = await WebhookEndpoint.findByPk(d.webhookId);
  expect(endpoint).toMatchObject({
    active: false,
    disabledReason: expect.stringMatching(/no successful delivery for 3 days/),
  });
});

it('stops retrying when the endpoint is disabled (CANCELLED)', async () => {
  const d = await delivery('/disabled');
  receiver.status = 500;
  const result = await withWorker(async (taskQueue) => {
    const handle = await wf.env.client.workflow.start('webhookDelivery', {
      taskQueue,
      workflowId: deliveryWorkflowId(d.deliveryId),
      args: [{ deliveryId: d.deliveryId }],
    });
    await wf.env.sleep('1 minute');
    await WebhookEndpoint.update({ active: false }, { where: { id: d.webhookId } });
    return handle.result();
  });
  receiver.status = 200;
  expect(result).toBe('CANCELLED');
});

it('never follows a redirect: a 3xx is a failed attempt', async () => {
  const d = await delivery('/moved');
  receiver.status = 302;
  const result = await withWorker(async (taskQueue) => {
    const handle = await wf.env.client.workflow.start('webhookDelivery', {
      taskQueue,
      workflowId: deliveryWorkflowId(d.deliveryId),
      args: [{ deliveryId: d.deliveryId }],
    });
    await wf.env.sleep('2 minutes');
    await WebhookEndpoint.update({ active: false }, { where: { id: d.webhookId } });
    return handle.result();
  });
  receiver.status = 200;
  expect(result).toBe('CANCELLED');
  const log = await attempts(d.deliveryId);
  expect(log.length).toBeGreaterThanOrEqual(2);
  expect(log.every((a) => !a.success && a.status_code === 302)).toBe(true);
  expect(receiver.received.filter((r) => r.path === '/redirect-target')).toEqual([]);
});

it('sweeps expired idempotency keys and replay-guard entries, keeping live ones', async () => {
  const { createWebhookActivities } = await import('../../activities/events/deliveries');
  const insertKey = (key: string, expires: string) =>
    wf.sequelize.query(
      `INSERT INTO idempotency_records (merchant_id, scope, key, request_hash, state, resource_id, locked_until, expires_at)
       VALUES (:merchantId, 'test', :key, 'h', 'COMPLETED', 'r', now(), ${expires})`,
      { replacements: { merchantId, key } },
    );
  await insertKey('expired-key', "now() - interval '1 hour'");
  await insertKey('live-key', "now() + interval '1 hour'");
  const credentialId = crypto.randomUUID();
  await wf.sequelize.query(
    `INSERT INTO request_signatures_seen (credential_id, signature, expires_at) VALUES (:c, 'old', now() - interval '1 minute'), (:c, 'new', now() + interval '5 minutes')`,
    { replacements: { c: credentialId } },
  );
  const swept = await createWebhookActivities({ sequelize: wf.sequelize }).sweepExpired();
  expect(swept.idempotencyKeys).toBeGreaterThanOrEqual(1);
  expect(swept.signatures).toBeGreaterThanOrEqual(1);
  const keys = await wf.sequelize.query<{ key: string }>(
    `SELECT key FROM idempotency_records WHERE scope = 'test' AND merchant_id = :merchantId`,
    { replacements: { merchantId }, type: QueryTypes.SELECT },
  );
  expect(keys.map((k) => k.key)).toEqual(['live-key']);
  const sigs = await wf.sequelize.query<{ signature: string }>(
    `SELECT signature FROM request_signatures_seen WHERE credential_id = :c`,
    { replacements: { c: credentialId }, type: QueryTypes.SELECT },
  );
  expect(sigs.map((s) => s.signature)).toEqual(['new']);
});

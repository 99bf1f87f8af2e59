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
import { mailWorkflowId } from '../../workflows/mail/definitions';
import { startReceiver, type Receiver } from '../support/receiver';
import { createTestEndpoint } from '../support/webhookEndpoints';
import { useWorkflowEnv } from '../support/workflowEnv';
import { startMailSink, type MailSink } from '../../scripts/lib/mailSink';

jest.setTimeout(120_000);

const key = crypto.randomBytes(32);
const wf = useWorkflowEnv();
let merchantId: string;
let receiver: Receiver;
// The owners' e-mail of a disabled endpoint really goes out: a local SMTP sink.
let mailSink: MailSink;

beforeAll(async () => {
  ({ merchantId } = await createMerchantWithCredential(wf.sequelize, { name: 'Loja Webhooks' }, key.toString('hex')));
  receiver = await startReceiver();
  mailSink = await startMailSink({ port: 0 });
});

afterAll(async () => {
  await receiver?.close();
  await mailSink?.stop();
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
  const deps = { secretsKey: key, allowPrivateDestinations: true, smtpUrl: mailSink.url };
  return wf.withWorker(wf.activities(undefined, deps), fn, {
    prefix: 'wh',
  });
}

/**
 * Runs the delivery's WebhookDelivery workflow on a test worker to its end; `meanwhile` moves the
 * clock or the endpoint as it runs; `afterwards` runs before that worker stops (for runs the
 * delivery started on its task queue: none may be left mid-activity, or the time-skipping
 * server's clock stays locked for the tests after).
 */
async function runDelivery(deliveryId: string, meanwhile?: () => Promise<void>, afterwards?: () => Promise<void>) {
  return withWorker(async (taskQueue) => {
    const handle = await wf.env.client.workflow.start('webhookDelivery', {
      taskQueue,
      workflowId: deliveryWorkflowId(deliveryId),
      args: [{ deliveryId }],
    });
    await meanwhile?.();
    const result = await handle.result();
    await afterwards?.();
    return result;
  });
}

it('delivers to a receiver that was down for 6 hours once it is back, recording every failed attempt', async () => {
  const d = await delivery('/down-6h');
  receiver.status = 503;
  const result = await runDelivery(d.deliveryId, async () => {
    await wf.env.sleep('6 hours');
    receiver.status = 200;
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

it('ends FAILED after 3 days of non-2xx answers, at the documented attempt count, disables the endpoint and e-mails its owner', async () => {
  const owner = `owner-${crypto.randomUUID()}@loja.example`;
  const userId = crypto.randomUUID();
  await wf.sequelize.query(`INSERT INTO users (id, email, name) VALUES (:userId, :owner, 'Dona da Loja')`, {
    replacements: { userId, owner },
  });
  await wf.sequelize.query(
    `INSERT INTO merchant_members (user_id, merchant_id, role) VALUES (:userId, :merchantId, 'owner')`,
    { replacements: { userId, merchantId } },
  );
  const d = await delivery('/never?token=do-not-mail-me');
  receiver.status = 500;
  const ownerMails = () =>
    wf.sequelize.query<{ id: string; subject: string }>(
      `SELECT id, subject FROM outgoing_mails WHERE to_address = :owner`,
      { replacements: { owner }, type: QueryTypes.SELECT },
    );
  let sent: string | undefined;
  const result = await runDelivery(d.deliveryId, undefined, async () => {
    // The disable started the owner's SendMail run on this worker's queue: it ends here, sent.
    const [mail] = await ownerMails();
    sent = await wf.env.client.workflow.getHandle(mailWorkflowId(mail.id)).result();
  });
  receiver.status = 200;
  expect(result).toBe('FAILED');
  expect(sent).toBe('SENT');
  const received = mailSink.messages().filter((m) => m.to.includes(owner));
  expect(received).toHaveLength(1);
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
  const mails = await ownerMails();
  expect(mails).toHaveLength(1);
  expect(mails[0].subject).toMatch(/webhook endpoint was disabled/);
  // What the owner received (the stored body is wiped once sent).
  const text = received[0].text;
  expect(text).toContain(d.webhookId);
  expect(text).toContain(`${receiver.url}/never (query string not shown)`);
  expect(text).toMatch(/failing since \d{4}-\d\d-\d\dT[\d:]+Z \(UTC\)/);
  expect(text).toContain('The last attempt: the receiver answered HTTP 500.');
  expect(text).toContain(`PATCH /sellers/webhooks/${d.webhookId} with {"active": true}`);
  // Neither the secret nor the receiver's own words nor the URL's query string.
  expect(text).not.toMatch(/whsec_|down for maintenance|do-not-mail-me/);
});

it('stops retrying when the endpoint is disabled (CANCELLED)', async () => {
  const d = await delivery('/disabled');
  receiver.status = 500;
  const result = await runDelivery(d.deliveryId, async () => {
    await wf.env.sleep('1 minute');
    await WebhookEndpoint.update({ active: false }, { where: { id: d.webhookId } });
  });
  receiver.status = 200;
  expect(result).toBe('CANCELLED');
});

it('never follows a redirect: a 3xx is a failed attempt', async () => {
  const d = await delivery('/moved');
  receiver.status = 302;
  const result = await runDelivery(d.deliveryId, async () => {
    await wf.env.sleep('2 minutes');
    await WebhookEndpoint.update({ active: false }, { where: { id: d.webhookId } });
  });
  receiver.status = 200;
  expect(result).toBe('CANCELLED');
  const log = await attempts(d.deliveryId);
  expect(log.length).toBeGreaterThanOrEqual(2);
  expect(log.every((a) => !a.success && a.status_code === 302)).toBe(true);
  expect(receiver.received.filter((r) => r.path === '/redirect-target')).toEqual([]);
});

it('disables the endpoint at once on 410 Gone and stops retrying (CANCELLED)', async () => {
  const d = await delivery('/gone');
  receiver.status = 410;
  const result = await runDelivery(d.deliveryId);
  receiver.status = 200;
  expect(result).toBe('CANCELLED');
  expect(await attempts(d.deliveryId)).toEqual([expect.objectContaining({ attempt: 1, status_code: 410 })]);
  const endpoint = await WebhookEndpoint.findByPk(d.webhookId);
  expect(endpoint).toMatchObject({
    active: false,
    disabledAt: expect.any(Date),
    disabledReason: 'disabled automatically: the receiver answered 410 Gone',
  });
});

it('waits as long as a 429 Retry-After asks (longer than the schedule) before the next attempt', async () => {
  const d = await delivery('/busy');
  receiver.status = 429;
  receiver.headers = { 'retry-after': '3600' };
  const result = await runDelivery(d.deliveryId, async () => {
    // The fixed schedule would have tried 8 more times within 50 minutes.
    await wf.env.sleep('50 minutes');
    expect(await attempts(d.deliveryId)).toHaveLength(1);
    receiver.status = 200;
    receiver.headers = {};
  });
  expect(result).toBe('SUCCEEDED');
  expect((await attempts(d.deliveryId)).map((a) => a.status_code)).toEqual([429, 200]);
  const [row] = await wf.sequelize.query<{ retry_after_ms: number | null }>(
    `SELECT retry_after_ms FROM webhook_delivery_attempts WHERE delivery_id = :id AND attempt = 1`,
    { replacements: { id: d.deliveryId }, type: QueryTypes.SELECT },
  );
  expect(row.retry_after_ms).toBe(3_600_000);
});

it('answers a recorded attempt with its recorded outcome, Retry-After included', async () => {
  const { createWebhookActivities } = await import('../../activities/events');
  const acts = createWebhookActivities({ sequelize: wf.sequelize, secretsKey: key, allowPrivateDestinations: true });
  const d = await delivery('/busy-recorded');
  receiver.status = 503;
  receiver.headers = { 'retry-after': '120' };
  const first = await acts.attemptDelivery({ deliveryId: d.deliveryId, attempt: 1 });
  receiver.status = 200;
  receiver.headers = {};
  expect(first).toEqual({ outcome: 'FAILED', statusCode: 503, retryAfterMs: 120_000 });
  expect(await acts.attemptDelivery({ deliveryId: d.deliveryId, attempt: 1 })).toEqual(first);
  expect(receiver.received.filter((r) => r.path === '/busy-recorded')).toHaveLength(1);
});

it('sweeps expired idempotency keys and replay-guard entries, keeping live ones', async () => {
  const { createWebhookActivities } = await import('../../activities/events');
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

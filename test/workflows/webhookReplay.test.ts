/**
 * WebhookReplay on the time-skipping server with the real activities and database: a re-enabled
 * endpoint gets what it missed while disabled (events recorded since, and deliveries CANCELLED by
 * the disable), oldest first, each after the previous one's first attempt; a failed first attempt
 * goes on retrying in its own workflow; a second re-enable sends nothing twice.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { QueryTypes } from 'sequelize';
import { createMerchantWithCredential } from '../../db/identity/merchantAdmin';
import { replayStore } from '../../db/events';
import { WebhookEndpoint } from '../../db/models';
import { deliveryWorkflowId, replayWorkflowId } from '../../workflows/events/definitions';
import { createTestEndpoint } from '../support/webhookEndpoints';
import { useWorkflowEnv } from '../support/workflowEnv';

jest.setTimeout(120_000);

const key = crypto.randomBytes(32);
const wf = useWorkflowEnv();
let merchantId: string;
/** Event ids in arrival order; the first request carrying `failOnce` is answered 500. */
const arrived: string[] = [];
let failOnce: string | null = null;
let server: http.Server;
let url: string;

beforeAll(async () => {
  ({ merchantId } = await createMerchantWithCredential(wf.sequelize, { name: 'Loja Replay' }, key.toString('hex')));
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const { eventId } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { eventId: string };
      arrived.push(eventId);
      const fail = eventId === failOnce;
      if (fail) failOnce = null;
      res.writeHead(fail ? 500 : 200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/replay`;
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
});

async function event(type: string, minutesAgo: number): Promise<string> {
  const id = crypto.randomUUID();
  await wf.sequelize.query(
    `INSERT INTO outbox_events (id, dedup_key, merchant_id, type, aggregate_type, aggregate_id, payload, created_at, dispatched_at)
     VALUES (:id, :dedup, :merchantId, :type, 'charge', :id, :payload, now() - make_interval(mins => :minutesAgo), now() - make_interval(mins => :minutesAgo))`,
    {
      replacements: {
        id,
        dedup: `${type}:${id}`,
        merchantId,
        type,
        minutesAgo,
        payload: JSON.stringify({ id, n: minutesAgo }),
      },
    },
  );
  return id;
}

async function deliveryOf(eventId: string, webhookId: string, status: string, minutesAgo: number) {
  await wf.sequelize.query(
    `INSERT INTO webhook_deliveries (id, event_id, webhook_id, merchant_id, event_type, url, body, status, workflow_started, completed_at)
     VALUES (:id, :eventId, :webhookId, :merchantId, 'charge.paid', :url, '{}', :status, TRUE, now() - make_interval(mins => :minutesAgo))`,
    { replacements: { id: crypto.randomUUID(), eventId, webhookId, merchantId, url, status, minutesAgo } },
  );
}

/** What PATCH {active: true} does: the endpoint active again, then its replay started (and awaited here). */
async function reEnable(webhookId: string, taskQueue: string) {
  const endpoint = (await WebhookEndpoint.findByPk(webhookId))!;
  const since = endpoint.disabledAt!;
  await endpoint.update({ active: true, disabledAt: null, disabledReason: null });
  return wf.env.client.workflow.execute('webhookReplay', {
    taskQueue,
    workflowId: replayWorkflowId(webhookId, since),
    args: [{ webhookId, merchantId, since: since.toISOString() }],
  });
}

async function disable(webhookId: string, minutesAgo: number) {
  await wf.sequelize.query(
    `UPDATE webhook_endpoints SET active = FALSE, disabled_at = now() - make_interval(mins => :minutesAgo), disabled_reason = 'test' WHERE id = :webhookId`,
    { replacements: { webhookId, minutesAgo } },
  );
}

it('replays what a disabled endpoint missed, oldest first, once', async () => {
  const hook = await createTestEndpoint({ merchantId, url, events: ['charge.paid', 'charge.expired'], key });
  const delivered = await event('charge.paid', 180); // before the disable, delivered: not replayed
  await deliveryOf(delivered, hook.id, 'SUCCEEDED', 179);
  const cancelled = await event('charge.paid', 120); // before the disable, its retries CANCELLED by it
  await deliveryOf(cancelled, hook.id, 'CANCELLED', 50);
  await disable(hook.id, 60);
  const first = await event('charge.paid', 45);
  const second = await event('charge.expired', 30);
  await event('charge.created', 25); // not subscribed
  const third = await event('charge.paid', 20);
  failOnce = second; // its first attempt fails: it is retried in its own workflow, the replay goes on

  const result = await wf.withWorker(
    wf.activities(undefined, { secretsKey: key, allowPrivateDestinations: true }),
    async (taskQueue) => {
      const replayed = await reEnable(hook.id, taskQueue);
      const [retried] = await wf.sequelize.query<{ id: string }>(
        `SELECT id FROM webhook_deliveries WHERE event_id = :second AND replay_id IS NOT NULL`,
        { replacements: { second }, type: QueryTypes.SELECT },
      );
      expect(await wf.env.client.workflow.getHandle(deliveryWorkflowId(retried.id)).result()).toBe('SUCCEEDED');
      return replayed;
    },
    { prefix: 'replay' },
  );
  expect(result).toEqual({ replayed: 4, stopped: false });
  // Oldest first; the failed one's retry came after the replay had moved on.
  expect(arrived).toEqual([cancelled, first, second, third, second]);
  const rows = await wf.sequelize.query<{ event_id: string; status: string; resend_of: string | null }>(
    `SELECT event_id, status, resend_of FROM webhook_deliveries WHERE replay_id IS NOT NULL AND webhook_id = :id`,
    { replacements: { id: hook.id }, type: QueryTypes.SELECT },
  );
  expect(rows).toHaveLength(4);
  expect(rows.every((r) => r.status === 'SUCCEEDED')).toBe(true);
  // The cancelled event went as a resend of its delivery; the others as their first delivery.
  expect(rows.filter((r) => r.resend_of !== null).map((r) => r.event_id)).toEqual([cancelled]);

  // Disabled and re-enabled again: everything missed was delivered already, nothing goes twice.
  await disable(hook.id, 0);
  const again = await wf.withWorker(
    wf.activities(undefined, { secretsKey: key, allowPrivateDestinations: true }),
    (taskQueue) => reEnable(hook.id, taskQueue),
    { prefix: 'replay' },
  );
  expect(again).toEqual({ replayed: 0, stopped: false });
  expect(arrived).toHaveLength(5);
});

it('prepares a replay once: a retried preparation answers the same deliveries', async () => {
  const hook = await createTestEndpoint({ merchantId, url, events: ['charge.paid'], key });
  const e = await event('charge.paid', 10);
  await wf.sequelize.query(`UPDATE outbox_events SET created_at = now() WHERE id = :e`, { replacements: { e } });
  const args = {
    replayId: `test-${crypto.randomUUID()}`,
    webhookId: hook.id,
    since: new Date(Date.now() - 5 * 60_000).toISOString(),
  };
  const made = await replayStore.prepareReplay(wf.sequelize, args);
  expect(made).toHaveLength(1);
  expect(await replayStore.prepareReplay(wf.sequelize, args)).toEqual(made);
  // A disabled endpoint gets no replay.
  await disable(hook.id, 0);
  expect(await replayStore.prepareReplay(wf.sequelize, { ...args, replayId: `test-${crypto.randomUUID()}` })).toEqual(
    [],
  );
});

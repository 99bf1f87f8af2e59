/**
 * The delivery attempt under production rules (private destinations refused), on the real
 * database and a real local receiver: a private destination is refused at connect time even when
 * the row never went through the API, and a name that rebinds to 127.0.0.1 after registration is
 * refused too. What the merchant can read back is a code, never network detail.
 */
import crypto from 'node:crypto';
import { createWebhookActivities } from '../../activities/events/deliveries';
import { assertWebhookDestination } from '../../api/events/destinationPolicy';
import { presentDelivery } from '../../core/events/presentDelivery';
import { deliveryStore } from '../../db/events';
import { createMerchantWithCredential } from '../../db/identity/merchantAdmin';
import { startReceiver, type Receiver } from '../support/receiver';
import { createTestEndpoint } from '../support/webhookEndpoints';
import { useWorkflowEnv } from '../support/workflowEnv';

jest.setTimeout(120_000);

const key = crypto.randomBytes(32);
const wf = useWorkflowEnv({ server: 'none' });
let merchantId: string;
let receiver: Receiver;
let port: string;

beforeAll(async () => {
  ({ merchantId } = await createMerchantWithCredential(wf.sequelize, { name: 'Loja Destinos' }, key.toString('hex')));
  receiver = await startReceiver();
  port = new URL(receiver.url).port;
});

afterAll(async () => {
  await receiver?.close();
});

/** An endpoint and a pending delivery written straight to the database, as if the API had been bypassed. */
async function delivery(url: string): Promise<string> {
  const webhookId = crypto.randomUUID();
  const eventId = crypto.randomUUID();
  const deliveryId = crypto.randomUUID();
  await createTestEndpoint({ id: webhookId, merchantId, url, events: ['charge.paid'], key });
  await wf.sequelize.query(
    `INSERT INTO outbox_events (id, dedup_key, merchant_id, type, aggregate_type, aggregate_id, payload, dispatched_at) VALUES (:eventId, :dedup, :merchantId, 'charge.paid', 'charge', :agg, '{}', now())`,
    { replacements: { eventId, dedup: `charge.paid:${eventId}`, merchantId, agg: eventId } },
  );
  await wf.sequelize.query(
    `INSERT INTO webhook_deliveries (id, event_id, webhook_id, merchant_id, event_type, url, body, status, workflow_started) VALUES (:deliveryId, :eventId, :webhookId, :merchantId, 'charge.paid', :url, '{}', 'PENDING', TRUE)`,
    { replacements: { deliveryId, eventId, webhookId, merchantId, url } },
  );
  return deliveryId;
}

/** The delivery as the merchant reads it (`GET /sellers/webhook-deliveries/{id}`). */
async function readBack(deliveryId: string) {
  const d = await deliveryStore.findDelivery(wf.sequelize, merchantId, deliveryId);
  const attempts = await deliveryStore.attemptsOf(wf.sequelize, deliveryId);
  return presentDelivery(d!, attempts);
}

function expectRefused(shown: Awaited<ReturnType<typeof readBack>>) {
  expect(shown).toMatchObject({
    status: 'PENDING',
    lastStatusCode: null,
    lastError: expect.stringMatching(/^DESTINATION_NOT_ALLOWED\b/),
  });
  expect(shown.attemptLog).toEqual([
    expect.objectContaining({ attempt: 1, statusCode: null, success: false, error: shown.lastError }),
  ]);
  expect(JSON.stringify(shown.attemptLog![0].error)).not.toMatch(/127\.0\.0\.1|7f00|ECONN|refused:|\d+\.\d+\.\d+\.\d+/);
}

it.each(['http://[::ffff:127.0.0.1]:PORT/direct-mapped', 'http://127.0.0.1:PORT/direct-v4'])(
  'refuses %s inserted without the API, at connect, and records DESTINATION_NOT_ALLOWED',
  async (raw) => {
    const url = raw.replace('PORT', port);
    const deliveryId = await delivery(url);
    const activities = createWebhookActivities({
      sequelize: wf.sequelize,
      secretsKey: key,
      allowPrivateDestinations: false,
    });
    await expect(activities.attemptDelivery({ deliveryId, attempt: 1 })).resolves.toEqual({
      outcome: 'FAILED',
      statusCode: null,
    });
    expectRefused(await readBack(deliveryId));
    expect(receiver.received.filter((r) => r.path.startsWith('/direct'))).toEqual([]);
  },
);

it('refuses a name that rebinds to 127.0.0.1 after passing the registration check', async () => {
  const asked: string[] = [];
  const answers = [['93.184.216.34'], ['127.0.0.1']];
  const lookup = async (host: string) => {
    asked.push(host);
    return answers[Math.min(asked.length, answers.length) - 1].map((address) => ({ address }));
  };
  const url = `http://rebind.attacker.test:${port}/rebound`;
  await expect(assertWebhookDestination(url, 'url', { allowPrivate: false, lookup })).resolves.toBe(url);
  const deliveryId = await delivery(url);
  const activities = createWebhookActivities({
    sequelize: wf.sequelize,
    secretsKey: key,
    allowPrivateDestinations: false,
    lookup,
  });
  await expect(activities.attemptDelivery({ deliveryId, attempt: 1 })).resolves.toEqual({
    outcome: 'FAILED',
    statusCode: null,
  });
  expectRefused(await readBack(deliveryId));
  expect(asked).toEqual(['rebind.attacker.test', 'rebind.attacker.test']);
  expect(receiver.received.filter((r) => r.path === '/rebound')).toEqual([]);
});

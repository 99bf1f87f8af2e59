/**
 * The delivery attempt under production rules (private destinations refused), on the real
 * database and a real local receiver: a private destination is refused at connect time even when
 * the row never went through the API, and a name that rebinds to 127.0.0.1 after registration is
 * refused too. What the merchant can read back is a code, never network detail.
 * A private receiver (WEBHOOK_PRIVATE_RECEIVERS) is delivered to for the merchants its entry names
 * only, and its error answers are not stored: the merchant reads back the status code alone.
 */
import crypto from 'node:crypto';
import os from 'node:os';
import { QueryTypes } from 'sequelize';
import { createWebhookActivities } from '../../activities/events';
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
async function delivery(url: string, owner = merchantId): Promise<string> {
  const webhookId = crypto.randomUUID();
  const eventId = crypto.randomUUID();
  const deliveryId = crypto.randomUUID();
  await createTestEndpoint({ id: webhookId, merchantId: owner, url, events: ['charge.paid'], key });
  await wf.sequelize.query(
    `INSERT INTO outbox_events (id, dedup_key, merchant_id, type, aggregate_type, aggregate_id, payload, dispatched_at) VALUES (:eventId, :dedup, :merchantId, 'charge.paid', 'charge', :agg, '{}', now())`,
    { replacements: { eventId, dedup: `charge.paid:${eventId}`, merchantId: owner, agg: eventId } },
  );
  await wf.sequelize.query(
    `INSERT INTO webhook_deliveries (id, event_id, webhook_id, merchant_id, event_type, url, body, status, workflow_started) VALUES (:deliveryId, :eventId, :webhookId, :merchantId, 'charge.paid', :url, '{}', 'PENDING', TRUE)`,
    { replacements: { deliveryId, eventId, webhookId, merchantId: owner, url } },
  );
  return deliveryId;
}

/** The delivery as the merchant reads it (`GET /sellers/webhook-deliveries/{id}`). */
async function readBack(deliveryId: string, owner = merchantId) {
  const d = await deliveryStore.findDelivery(wf.sequelize, owner, deliveryId);
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
  await expect(assertWebhookDestination(url, 'url', merchantId, { allowPrivate: false, lookup })).resolves.toBe(url);
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

describe('a private receiver (WEBHOOK_PRIVATE_RECEIVERS) belongs to the merchants its entry names', () => {
  // This machine's own non-loopback address: private or reserved on every test machine, so only
  // the entry lets production reach it (when it has none, test/unit/webhookDestinations covers the rule).
  const own = Object.values(os.networkInterfaces())
    .flat()
    .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
  const maybe = own ? it : it.skip;
  let privateReceiver: Receiver;
  let other: string;

  beforeAll(async () => {
    if (!own) return;
    privateReceiver = await startReceiver(own);
    ({ merchantId: other } = await createMerchantWithCredential(
      wf.sequelize,
      { name: 'Loja Vizinha' },
      key.toString('hex'),
    ));
  });
  afterAll(async () => {
    await privateReceiver?.close();
  });
  afterEach(() => {
    privateReceiver.status = 200;
    privateReceiver.body = null;
  });

  /** The worker's activities with the receiver listed for `merchantId` (not for `other`). */
  const activities = () =>
    createWebhookActivities({
      sequelize: wf.sequelize,
      secretsKey: key,
      allowPrivateDestinations: false,
      privateReceivers: [{ receiver: new URL(privateReceiver.url).host, merchantIds: [merchantId] }],
    });

  maybe('delivers for the merchant its entry names, and refuses another merchant at connect', async () => {
    const mine = await delivery(`${privateReceiver.url}/mine`);
    await expect(activities().attemptDelivery({ deliveryId: mine, attempt: 1 })).resolves.toEqual({
      outcome: 'DELIVERED',
      statusCode: 200,
    });
    expect(privateReceiver.received.map((r) => r.path)).toEqual(['/mine']);

    const theirs = await delivery(`${privateReceiver.url}/theirs`, other);
    await expect(activities().attemptDelivery({ deliveryId: theirs, attempt: 1 })).resolves.toEqual({
      outcome: 'FAILED',
      statusCode: null,
    });
    expectRefused(await readBack(theirs, other));
    expect(privateReceiver.received.map((r) => r.path)).toEqual(['/mine']);
  });

  maybe("keeps a private receiver's error answer out of the delivery: its status code only", async () => {
    privateReceiver.status = 500;
    privateReceiver.body = 'INTERNAL-ERROR-PAGE: pg at 10.9.9.9:5432 refused user gateway_admin';
    const deliveryId = await delivery(`${privateReceiver.url}/failing`);
    await expect(activities().attemptDelivery({ deliveryId, attempt: 1 })).resolves.toEqual({
      outcome: 'FAILED',
      statusCode: 500,
    });
    const shown = await readBack(deliveryId);
    expect(shown).toMatchObject({
      status: 'PENDING',
      lastStatusCode: 500,
      lastError: expect.stringMatching(/^HTTP 500\b/),
    });
    expect(shown.attemptLog).toEqual([
      expect.objectContaining({ attempt: 1, statusCode: 500, success: false, error: shown.lastError }),
    ]);
    expect(JSON.stringify(shown)).not.toMatch(/INTERNAL-ERROR-PAGE|10\.9\.9\.9|gateway_admin/);
    // Nor is it stored anywhere a later view could show it.
    const [stored] = await wf.sequelize.query<{ text: string }>(
      `SELECT (SELECT last_error FROM webhook_deliveries WHERE id = :deliveryId) || ' ' || string_agg(coalesce(error, ''), ' ') AS text
       FROM webhook_delivery_attempts WHERE delivery_id = :deliveryId`,
      { replacements: { deliveryId }, type: QueryTypes.SELECT },
    );
    expect(stored.text).toMatch(/HTTP 500/);
    expect(stored.text).not.toMatch(/INTERNAL-ERROR-PAGE/);
  });

  maybe("still shows a public receiver's error answer (development's local receiver stands in for one)", async () => {
    receiver.status = 500;
    try {
      const deliveryId = await delivery(`${receiver.url}/public-failing`);
      const dev = createWebhookActivities({ sequelize: wf.sequelize, secretsKey: key, allowPrivateDestinations: true });
      await dev.attemptDelivery({ deliveryId, attempt: 1 });
      expect((await readBack(deliveryId)).lastError).toBe('HTTP 500: down for maintenance');
    } finally {
      receiver.status = 200;
    }
  });
});

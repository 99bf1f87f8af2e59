/**
 * The outbox dispatcher under a flood: thousands of events committed quickly
 * must not flood the singleton dispatcher with one signal each (its history passed 10,000
 * events in the 10,000-item bench and the worker died). Events nobody subscribed to cost no
 * signal and no delivery; subscribed ones get exactly one delivery each.
 * Runs on the dev server (real signal and history behaviour), with the real activities.
 */
import crypto from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { QueryTypes } from 'sequelize';
import { recordEvent } from '../../activities/events/outbox';
import { createMerchantWithCredential } from '../../db/identity/merchantAdmin';
import { ensureOutboxDispatcher } from '../../workers/ensureOutboxDispatcher';
import { dispatcherWorkflowId } from '../../workflows/events/definitions';
import { createTestEndpoint } from '../support/webhookEndpoints';
import { waitFor } from '../support/env';
import { startReceiver, type Receiver } from '../support/receiver';
import { useWorkflowEnv } from '../support/workflowEnv';

jest.setTimeout(240_000);

const key = crypto.randomBytes(32);
const wf = useWorkflowEnv({ server: 'dev', poolMax: 10, ownDatabase: true });
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
});

afterAll(async () => {
  await receiver?.close();
});

async function commitEvents(taskQueue: string, merchantId: string, n: number, type: string): Promise<void> {
  const activityEnv = new MockActivityEnvironment({ taskQueue }, { client: wf.client });
  await activityEnv.run(async () => {
    for (let i = 0; i < n; i += 10) {
      await Promise.all(
        Array.from({ length: Math.min(10, n - i) }, () =>
          wf.sequelize.transaction((t) =>
            recordEvent(
              {
                type,
                merchantId,
                aggregateType: 'payout_item',
                aggregateId: crypto.randomUUID(),
                payload: { status: 'PAID' },
              },
              t,
            ),
          ),
        ),
      );
    }
  });
}

const count = async (sql: string, replacements: Record<string, unknown>) =>
  (await wf.sequelize.query<{ n: number }>(sql, { replacements, type: QueryTypes.SELECT }))[0].n;

it('keeps the dispatcher history small and delivers each subscribed event once', async () => {
  const quiet = await createMerchantWithCredential(wf.sequelize, { name: 'Sem Webhooks' }, key.toString('hex'));
  const subscribed = await createMerchantWithCredential(wf.sequelize, { name: 'Com Webhooks' }, key.toString('hex'));
  await createTestEndpoint({
    merchantId: subscribed.merchantId,
    url: `${receiver.url}/flood`,
    events: ['payout.item.paid'],
    key,
  });
  await wf.withWorker(
    wf.activities(undefined, { secretsKey: key, allowPrivateDestinations: true }),
    async (taskQueue) => {
      await ensureOutboxDispatcher(wf.client, taskQueue);
      await commitEvents(taskQueue, quiet.merchantId, 1_500, 'payout.item.paid');
      await commitEvents(taskQueue, subscribed.merchantId, 200, 'payout.item.paid');
      await waitFor(
        async () =>
          (await count(
            `SELECT count(*)::int AS n FROM outbox_events WHERE merchant_id IN (:a, :b) AND dispatched_at IS NULL`,
            { a: quiet.merchantId, b: subscribed.merchantId },
          )) === 0,
        'every event to be dispatched',
        120_000,
      );
      await waitFor(
        async () =>
          (await count(
            `SELECT count(*)::int AS n FROM webhook_deliveries WHERE merchant_id = :m AND status = 'SUCCEEDED'`,
            { m: subscribed.merchantId },
          )) === 200,
        'every subscribed event to be delivered',
        120_000,
      );
      const description = await wf.client.workflow.getHandle(dispatcherWorkflowId(taskQueue)).describe();
      const history = await wf.client.workflow.getHandle(dispatcherWorkflowId(taskQueue)).fetchHistory();
      const signals = (history.events ?? []).filter((e) => e.workflowExecutionSignaledEventAttributes).length;
      expect({ historyLength: description.historyLength < 1_000, signals: signals < 50 }).toEqual({
        historyLength: true,
        signals: true,
      });
      await wf.client.workflow.getHandle(dispatcherWorkflowId(taskQueue)).terminate('test over');
    },
    { prefix: 'flood' },
  );
  expect(
    await count(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE merchant_id = :m`, { m: quiet.merchantId }),
  ).toBe(0);
  expect(
    await count(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE merchant_id = :m AND resend_of IS NULL`, {
      m: subscribed.merchantId,
    }),
  ).toBe(200);
  expect(
    new Set(receiver.received.filter((r) => r.path === '/flood').map((r) => JSON.parse(r.rawBody).eventId)).size,
  ).toBe(200);
});

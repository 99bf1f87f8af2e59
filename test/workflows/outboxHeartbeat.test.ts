/**
 * The outbox dispatcher's round heartbeats with a short heartbeat timeout: a round whose worker
 * died (it stops heartbeating) is retried within seconds, not after the 60 s start-to-close
 * timeout, so pending webhooks do not all wait a minute after a worker crash.
 * Runs on the dev server (real timeouts), with the real activities.
 */
import crypto from 'node:crypto';
import { Context } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import { QueryTypes } from 'sequelize';
import { recordEvent } from '../../activities/events/outbox';
import { createMerchantWithCredential } from '../../db/identity/merchantAdmin';
import { ensureOutboxDispatcher } from '../../workers/ensureOutboxDispatcher';
import { dispatcherWorkflowId } from '../../workflows/events/definitions';
import { createTestEndpoint } from '../support/webhookEndpoints';
import { waitFor } from '../support/env';
import { useWorkflowEnv } from '../support/workflowEnv';

jest.setTimeout(120_000);

const key = crypto.randomBytes(32);
const wf = useWorkflowEnv({ server: 'dev', ownDatabase: true });

/** A merchant subscribed to `payout.item.paid`, with one such event committed and not yet dispatched. */
async function committedEvent(): Promise<{ merchantId: string; eventId: string }> {
  const { merchantId } = await createMerchantWithCredential(
    wf.sequelize,
    { name: 'Loja Batimento' },
    key.toString('hex'),
  );
  await createTestEndpoint({ merchantId, url: 'http://127.0.0.1:1/heartbeat', events: ['payout.item.paid'], key });
  // Outside an activity recordEvent leaves the event to the dispatcher, as after a crash.
  await wf.sequelize.transaction((t) =>
    recordEvent(
      {
        type: 'payout.item.paid',
        merchantId,
        aggregateType: 'payout_item',
        aggregateId: crypto.randomUUID(),
        payload: { status: 'PAID' },
      },
      t,
    ),
  );
  const [{ id }] = await wf.sequelize.query<{ id: string }>(
    `SELECT id FROM outbox_events WHERE merchant_id = :merchantId`,
    { replacements: { merchantId }, type: QueryTypes.SELECT },
  );
  return { merchantId, eventId: id };
}

it('retries a round whose worker stopped heartbeating within seconds, and the event is dispatched', async () => {
  const { eventId } = await committedEvent();
  const real = wf.activities(undefined, { secretsKey: key, allowPrivateDestinations: true });
  let hung = false;
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  const attempts: Array<{ activityId: string; attempt: number; startedAt: number; doneAt?: number }> = [];
  const dispatchOutbox: typeof real.dispatchOutbox = async (args) => {
    const { activityId, attempt } = Context.current().info;
    const entry: (typeof attempts)[number] = { activityId, attempt, startedAt: Date.now() };
    attempts.push(entry);
    if (!hung) {
      // The first round's worker "dies": no heartbeat, no answer, until the test is over.
      hung = true;
      await released;
      throw new Error('this attempt was abandoned');
    }
    const n = await real.dispatchOutbox(args);
    entry.doneAt = Date.now();
    return n;
  };

  await wf.withWorker(
    { ...real, dispatchOutbox },
    async (taskQueue) => {
      try {
        await ensureOutboxDispatcher(wf.client, taskQueue);
        // The wait is generous for a slow host; what proves the heartbeat is the gap checked below:
        // a retry after the 5 s heartbeat timeout, far before the 60 s start-to-close timeout.
        const retried = await waitFor(
          async () => attempts.find((a) => a.activityId === attempts[0]?.activityId && a.attempt > 1 && a.doneAt),
          'the abandoned round to be retried and finished',
          90_000,
        );
        expect(retried.startedAt - attempts[0].startedAt).toBeLessThan(30_000);
        // Dispatched once, by the retried round: the file's own database has no other dispatcher.
        const [row] = await wf.sequelize.query<{ dispatched: boolean; deliveries: number }>(
          `SELECT e.dispatched_at IS NOT NULL AS dispatched,
                  (SELECT count(*)::int FROM webhook_deliveries d WHERE d.event_id = e.id) AS deliveries
             FROM outbox_events e WHERE e.id = :eventId`,
          { replacements: { eventId }, type: QueryTypes.SELECT },
        );
        expect(row).toEqual({ dispatched: true, deliveries: 1 });
      } finally {
        release();
        await wf.client.workflow
          .getHandle(dispatcherWorkflowId(taskQueue))
          .terminate('test over')
          .catch(() => undefined);
      }
    },
    { prefix: 'heartbeat' },
  );
});

it('heartbeats while it dispatches', async () => {
  await committedEvent();
  const real = wf.activities(undefined, { secretsKey: key, allowPrivateDestinations: true });
  // On a polled task queue: a delivery the round starts has a worker to run it.
  await wf.withWorker(
    real,
    async (taskQueue) => {
      const env = new MockActivityEnvironment({ taskQueue }, { client: wf.client });
      let heartbeats = 0;
      env.on('heartbeat', () => heartbeats++);
      await env.run(real.dispatchOutbox, { limit: 200 });
      expect(heartbeats).toBeGreaterThan(0);
    },
    { prefix: 'heartbeat' },
  );
});

/**
 * OutboxDispatcher (one per task queue, id `outbox-dispatcher-<taskQueue>`): moves committed
 * events from the outbox into deliveries. Woken by a signal after an event with a subscriber
 * commits (coalesced by the committing worker: a few per second at most, never one per event),
 * and polls every 2 s in case a wake-up was lost. Continues as new after at most
 * ROUNDS_PER_RUN rounds or MAX_HISTORY_EVENTS history events, whichever comes first.
 * Each run also sweeps expired idempotency keys and replay-guard entries.
 */
import {
  condition,
  continueAsNew,
  proxyActivities,
  setHandler,
  workflowInfo,
  type RetryPolicy,
} from '@temporalio/workflow';
import type { WebhookActivities } from '../../activities/events';
import { outboxKickSignal } from './definitions';

const retry: RetryPolicy = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' };
const { sweepExpired } = proxyActivities<WebhookActivities>({ startToCloseTimeout: '60 seconds', retry });
// The round heartbeats (activities/events/dispatchOutbox.ts): a worker killed mid-round is noticed
// after 5 s and the round runs again elsewhere, instead of every pending webhook waiting out the
// 60 s start-to-close timeout. Activity options are not part of replay's command check.
const { dispatchOutbox } = proxyActivities<WebhookActivities>({
  startToCloseTimeout: '60 seconds',
  heartbeatTimeout: '5 seconds',
  retry,
});

const BATCH = 200;
const ROUNDS_PER_RUN = 200;
/** Continue as new well before the history is large: a bound this workflow controls. */
const MAX_HISTORY_EVENTS = 1_000;

export async function outboxDispatcher(): Promise<void> {
  let kicked = false;
  setHandler(outboxKickSignal, () => {
    kicked = true;
  });
  // Once per run (every few minutes at most): forget expired idempotency keys and signatures.
  await sweepExpired();
  for (
    let round = 0;
    round < ROUNDS_PER_RUN &&
    workflowInfo().historyLength < MAX_HISTORY_EVENTS &&
    !workflowInfo().continueAsNewSuggested;
    round++
  ) {
    kicked = false;
    const dispatched = await dispatchOutbox({ limit: BATCH });
    if (dispatched < BATCH) await condition(() => kicked, '2 seconds');
  }
  await continueAsNew<typeof outboxDispatcher>();
}

/**
 * WebhookDelivery (workflow id `webhook-<deliveryId>`): one event to one endpoint. Each attempt is
 * an activity that records itself; between failed attempts the workflow sleeps on the documented
 * schedule (10 s doubling, at most 6 h apart) for up to 3 days, then marks the delivery FAILED.
 * A disabled endpoint stops the retries (CANCELLED), and so does a 410 Gone (which disables it).
 * A 429/503 with Retry-After waits at least what the receiver asked (at most 6 h, never past the
 * 3-day window); runs recorded before 'delivery-retry-after' replay on the fixed schedule.
 */
import {
  type ActivityOptions,
  type LocalActivityOptions,
  patched,
  proxyActivities,
  proxyLocalActivities,
  sleep,
} from '@temporalio/workflow';
import type { WebhookActivities } from '../../activities/events';
import { DELIVERY_WINDOW_MS, retryDelayMs } from '../../core/events/retrySchedule';

const attemptOptions: ActivityOptions & LocalActivityOptions = {
  // An attempt waits at most 10 s for the receiver; the rest is our own DB work.
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
};
const acts = proxyActivities<WebhookActivities>(attemptOptions);
/**
 * The first attempt runs as a local activity, in the run's first workflow task: the receiver is
 * called as soon as the run starts, with no activity task sent through the server and back. An
 * attempt is keyed (delivery, attempt number), so running it again after a crash changes nothing
 * twice. Runs recorded before 'delivery-first-attempt-local' replay with a regular activity.
 */
const firstAttempt = proxyLocalActivities<WebhookActivities>(attemptOptions);

export type DeliveryResult = 'SUCCEEDED' | 'FAILED' | 'CANCELLED';

export async function webhookDelivery(input: { deliveryId: string }): Promise<DeliveryResult> {
  const firstAttemptAt = Date.now();
  for (let attempt = 1; ; attempt++) {
    const attempting = attempt === 1 && patched('delivery-first-attempt-local') ? firstAttempt : acts;
    const { outcome, retryAfterMs } = await attempting.attemptDelivery({ deliveryId: input.deliveryId, attempt });
    if (outcome === 'DELIVERED') return 'SUCCEEDED';
    if (outcome === 'STOPPED') {
      await acts.completeDelivery({ deliveryId: input.deliveryId, status: 'CANCELLED' });
      return 'CANCELLED';
    }
    let delay = retryDelayMs(attempt);
    if (Date.now() + delay - firstAttemptAt > DELIVERY_WINDOW_MS) {
      await acts.completeDelivery({ deliveryId: input.deliveryId, status: 'FAILED' });
      return 'FAILED';
    }
    // The receiver's wait when longer, but the attempt the schedule still allows is not given up:
    // it moves to the window's end at the latest.
    if (retryAfterMs && retryAfterMs > delay && patched('delivery-retry-after'))
      delay = Math.min(retryAfterMs, firstAttemptAt + DELIVERY_WINDOW_MS - Date.now());
    await acts.scheduleNextAttempt({ deliveryId: input.deliveryId, at: new Date(Date.now() + delay).toISOString() });
    await sleep(delay);
  }
}

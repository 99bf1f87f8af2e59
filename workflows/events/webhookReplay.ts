/**
 * WebhookReplay (workflow id `webhook-replay-<webhookId>-<disabledAt ms>`): a re-enabled endpoint
 * gets the events it missed while disabled, oldest first, each one after the previous one's first
 * attempt finished, so a receiver that applies events in arrival order sees them in order. A
 * delivery whose first attempt failed goes on retrying in its own WebhookDelivery workflow (it
 * reads that attempt back) while the replay moves on; an endpoint disabled again (or a 410)
 * stops the replay, and the deliveries not yet sent are CANCELLED, for the next re-enable.
 * Bounded in db/events/replayStore.ts (3 days back, 500 events).
 */
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { WebhookActivities } from '../../activities/events';

const acts = proxyActivities<WebhookActivities>({
  // An attempt waits at most 10 s for the receiver; preparing writes at most 500 rows.
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

export async function webhookReplay(input: {
  webhookId: string;
  merchantId: string;
  since: string;
}): Promise<{ replayed: number; stopped: boolean }> {
  const { workflowId } = workflowInfo();
  const deliveryIds = await acts.prepareReplay({
    replayId: workflowId,
    webhookId: input.webhookId,
    since: input.since,
  });
  for (let i = 0; i < deliveryIds.length; i++) {
    const deliveryId = deliveryIds[i];
    const { outcome } = await acts.attemptDelivery({ deliveryId, attempt: 1 });
    if (outcome === 'FAILED') await acts.startDelivery({ deliveryId, merchantId: input.merchantId });
    if (outcome === 'STOPPED') {
      await acts.cancelDeliveries({ deliveryIds: deliveryIds.slice(i) });
      return { replayed: i, stopped: true };
    }
  }
  return { replayed: deliveryIds.length, stopped: false };
}

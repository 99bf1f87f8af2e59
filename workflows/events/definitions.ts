/** Messages and ids of the webhook workflows, shared with activities and the API. */
import { defineSignal } from '@temporalio/workflow';
import { defineWorkflow } from '../defineWorkflow';
import type { outboxDispatcher } from './outboxDispatcher';
import type { webhookDelivery } from './webhookDelivery';
import type { webhookReplay } from './webhookReplay';

/** Sent after an event commits, so the dispatcher does not wait for its next poll. */
export const outboxKickSignal = defineSignal('outboxKick');

export const outboxDispatcherWorkflow =
  defineWorkflow<typeof outboxDispatcher>('outboxDispatcher').handles(outboxKickSignal);
export const webhookDeliveryWorkflow = defineWorkflow<typeof webhookDelivery>('webhookDelivery');

export const dispatcherWorkflowId = (taskQueue: string) => `outbox-dispatcher-${taskQueue}`;
export const deliveryWorkflowId = (deliveryId: string) => `webhook-${deliveryId}`;
export const webhookReplayWorkflow = defineWorkflow<typeof webhookReplay>('webhookReplay');
/** One replay per re-enable: the disable it ends names it. */
export const replayWorkflowId = (webhookId: string, disabledAt: Date) =>
  `webhook-replay-${webhookId}-${disabledAt.getTime()}`;

/**
 * An attempt's result. STOPPED: the delivery will not be tried again (endpoint disabled, or it
 * answered 410 Gone). `retryAfterMs`: a 429/503 asked for at least this wait (at most 6 h);
 * absent from results recorded before Retry-After was honoured.
 */
export type AttemptOutcome = {
  outcome: 'DELIVERED' | 'FAILED' | 'STOPPED';
  statusCode: number | null;
  retryAfterMs?: number;
};

/** Messages and ids of the webhook workflows, shared with activities and the API. */
import { defineSignal } from '@temporalio/workflow';

/** Sent after an event commits, so the dispatcher does not wait for its next poll. */
export const outboxKickSignal = defineSignal('outboxKick');

export const dispatcherWorkflowId = (taskQueue: string) => `outbox-dispatcher-${taskQueue}`;
export const deliveryWorkflowId = (deliveryId: string) => `webhook-${deliveryId}`;

export type AttemptOutcome = { outcome: 'DELIVERED' | 'FAILED' | 'STOPPED'; statusCode: number | null };

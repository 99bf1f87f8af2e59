/** Starts this task queue's outbox dispatcher unless it already runs (idempotent at every boot). */
import type { Client } from '@temporalio/client';
import { dispatcherWorkflowId } from '../workflows/events/definitions';

export async function ensureOutboxDispatcher(client: Client, taskQueue: string): Promise<void> {
  await client.workflow.start('outboxDispatcher', {
    workflowId: dispatcherWorkflowId(taskQueue),
    taskQueue,
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
}

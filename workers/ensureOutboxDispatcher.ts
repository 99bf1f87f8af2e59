/** Starts this task queue's outbox dispatcher unless it already runs (idempotent at every boot). */
import type { Client } from '@temporalio/client';
import { dispatcherWorkflowId, outboxDispatcherWorkflow } from '../workflows/events/definitions';
import { startWorkflow } from '../core/temporal/workflows';

export async function ensureOutboxDispatcher(client: Client, taskQueue: string): Promise<void> {
  await startWorkflow(client, outboxDispatcherWorkflow, {
    workflowId: dispatcherWorkflowId(taskQueue),
    taskQueue,
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
}

/**
 * The synchronous-answer pattern: start the workflow and send it an update in one call
 * (Update-With-Start, conflict policy FAIL, so a business id never gets two runs). When the run
 * already exists — a previous holder of the same idempotency key started it and died — join it
 * with the same update instead: the update is idempotent inside the workflow.
 */
import { WithStartWorkflowOperation, WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import { BusinessStatusKey, MerchantIdKey } from '../../workflows/searchAttributes';

export async function updateWithStartOrJoin<Ret>(
  client: Client,
  update: UpdateDefinition<Ret, []>,
  run: {
    workflowType: string;
    workflowId: string;
    taskQueue: string;
    args: unknown[];
    merchantId: string;
    initialStatus: string;
  },
): Promise<Ret> {
  const start = new WithStartWorkflowOperation(run.workflowType, {
    workflowId: run.workflowId,
    taskQueue: run.taskQueue,
    args: run.args,
    workflowIdConflictPolicy: 'FAIL',
    typedSearchAttributes: [
      { key: MerchantIdKey, value: run.merchantId },
      { key: BusinessStatusKey, value: run.initialStatus },
    ],
  });
  try {
    return await client.workflow.executeUpdateWithStart(update, { startWorkflowOperation: start });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    return client.workflow.getHandle(run.workflowId).executeUpdate(update);
  }
}

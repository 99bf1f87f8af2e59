/**
 * The synchronous-answer pattern: start the workflow and send it an update in one call
 * (Update-With-Start, conflict policy FAIL, so a business id never gets two runs). When the run
 * already exists — a previous holder of the same idempotency key started it and died — join it
 * with the same update instead: the update is idempotent inside the workflow. Typed by the
 * workflow's definition (workflows/defineWorkflow.ts): its arguments, and an update it handles.
 */
import { WithStartWorkflowOperation, WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { UpdateDefinition, Workflow } from '@temporalio/common';
import type { UpdateResult, WorkflowDefinition, WorkflowMessage } from './definition';
import { BusinessStatusKey, MerchantIdKey } from './searchAttributes';

export async function updateWithStartOrJoin<
  W extends Workflow,
  M extends WorkflowMessage,
  U extends Extract<M, UpdateDefinition<any, []>>,
>(
  client: Client,
  workflow: WorkflowDefinition<W, M>,
  update: U,
  run: {
    workflowId: string;
    taskQueue: string;
    args: Parameters<W>;
    merchantId: string;
    initialStatus: string;
  },
): Promise<UpdateResult<U>> {
  // Checked against the workflow's parameters above (`run.args`); the SDK's operation needs no more.
  const start = new WithStartWorkflowOperation<Workflow>(workflow.name, {
    workflowId: run.workflowId,
    taskQueue: run.taskQueue,
    args: run.args,
    workflowIdConflictPolicy: 'FAIL',
    typedSearchAttributes: [
      { key: MerchantIdKey, value: run.merchantId },
      { key: BusinessStatusKey, value: run.initialStatus },
    ],
  });
  const definition = update as UpdateDefinition<UpdateResult<U>, []>;
  try {
    return await client.workflow.executeUpdateWithStart(definition, { startWorkflowOperation: start });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    return client.workflow.getHandle(run.workflowId).executeUpdate(definition);
  }
}

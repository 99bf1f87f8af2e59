/**
 * Starts the WebhookDelivery workflow of a delivery row, then marks the row started — in that
 * order, for the dispatcher and the API's resend alike: if the start fails, the row still says
 * "not started" and the dispatcher's sweep starts it later; a delivery never claims a workflow
 * that does not exist. `eager` only from a worker's client (a NativeConnection it shares).
 */
import { WorkflowExecutionAlreadyStartedError, type WorkflowClient } from '@temporalio/client';
import { startWorkflow } from '../../core/temporal/workflows';
import type { Sequelize } from 'sequelize';
import { deliveryWorkflowId, webhookDeliveryWorkflow } from '../../workflows/events/definitions';
import { MerchantIdKey } from '../../core/temporal/searchAttributes';
import { markWorkflowStarted } from './deliveryStore';

export async function startDeliveryWorkflow(
  sequelize: Sequelize,
  workflows: WorkflowClient,
  delivery: { id: string; merchantId: string; taskQueue: string },
  opts: { eager?: boolean } = {},
): Promise<void> {
  try {
    await startWorkflow(workflows, webhookDeliveryWorkflow, {
      workflowId: deliveryWorkflowId(delivery.id),
      taskQueue: delivery.taskQueue,
      args: [{ deliveryId: delivery.id }],
      typedSearchAttributes: [{ key: MerchantIdKey, value: delivery.merchantId }],
      // From a worker's own client: the server may hand the first workflow task straight back to
      // this process with its answer (eager start), skipping a trip through the task queue. A
      // request only: a server that does not do it starts the run the ordinary way.
      ...(opts.eager ? { requestEagerStart: true } : {}),
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
  await markWorkflowStarted(sequelize, delivery.id);
}

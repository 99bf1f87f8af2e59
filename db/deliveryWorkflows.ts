/**
 * Starts the WebhookDelivery workflow of a delivery row, then marks the row started — in that
 * order, for the dispatcher and the API's resend alike: if the start fails, the row still says
 * "not started" and the dispatcher's sweep starts it later; a delivery never claims a workflow
 * that does not exist.
 */
import { WorkflowExecutionAlreadyStartedError, type WorkflowClient } from '@temporalio/client';
import type { Sequelize } from 'sequelize';
import { deliveryWorkflowId } from '../workflows/webhook/definitions';
import { MerchantIdKey } from '../workflows/searchAttributes';

export async function startDeliveryWorkflow(
  sequelize: Sequelize,
  workflows: WorkflowClient,
  delivery: { id: string; merchantId: string; taskQueue: string },
): Promise<void> {
  try {
    await workflows.start('webhookDelivery', {
      workflowId: deliveryWorkflowId(delivery.id),
      taskQueue: delivery.taskQueue,
      args: [{ deliveryId: delivery.id }],
      typedSearchAttributes: [{ key: MerchantIdKey, value: delivery.merchantId }],
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
  await sequelize.query(`UPDATE webhook_deliveries SET workflow_started = TRUE WHERE id = :id`, { replacements: { id: delivery.id } });
}

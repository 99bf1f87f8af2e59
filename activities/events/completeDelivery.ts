import { Context } from '@temporalio/activity';
import { deliveryStore, webhookEndpointStore } from '../../db/events';
import { queueDisabledNotice } from './disabledNotice';
import type { WebhookActivityDeps } from './deps';

export async function scheduleNextAttempt(
  deps: Pick<WebhookActivityDeps, 'sequelize'>,
  args: { deliveryId: string; at: string },
): Promise<void> {
  await deliveryStore.scheduleNextAttempt(deps.sequelize, args.deliveryId, args.at);
}

/**
 * FAILED: retries exhausted. An endpoint with no successful delivery in 3 days is then
 * disabled, so a dead receiver stops costing attempts, and its owners are e-mailed in the same
 * transaction (the merchant re-enables it with PATCH).
 */
export async function completeDelivery(
  deps: Pick<WebhookActivityDeps, 'sequelize' | 'secretsKey'>,
  args: { deliveryId: string; status: 'FAILED' | 'CANCELLED' },
): Promise<void> {
  const { sequelize } = deps;
  const ctx = Context.current();
  await sequelize.transaction(async (transaction) => {
    const webhookId = await deliveryStore.closeDelivery(sequelize, args.deliveryId, args.status, transaction);
    if (!webhookId || args.status !== 'FAILED') return;
    const disabled = await webhookEndpointStore.disableIfDead(sequelize, webhookId, transaction);
    if (!disabled) return;
    if (!deps.secretsKey) throw new Error('webhook secrets key is not configured for this worker');
    await queueDisabledNotice(
      { sequelize, secretsKey: deps.secretsKey, workflows: ctx.client.workflow, taskQueue: ctx.info.taskQueue },
      disabled,
      transaction,
    );
  });
}

/**
 * Activities of the WebhookReplay workflow (a re-enabled endpoint gets what it missed): prepare
 * the replay's deliveries, start the WebhookDelivery workflow of one whose first attempt failed
 * (it reads that recorded attempt and goes on with the retries), and close the ones a disable
 * in the middle of the replay left unsent (CANCELLED: the next re-enable replays them).
 */
import { Context } from '@temporalio/activity';
import type { Sequelize } from 'sequelize';
import { deliveryStore, replayStore, startDeliveryWorkflow } from '../../db/events';

export async function prepareReplay(
  deps: { sequelize: Sequelize },
  args: { replayId: string; webhookId: string; since: string },
): Promise<string[]> {
  return replayStore.prepareReplay(deps.sequelize, args);
}

export async function startDelivery(
  deps: { sequelize: Sequelize },
  args: { deliveryId: string; merchantId: string },
): Promise<void> {
  const ctx = Context.current();
  await startDeliveryWorkflow(deps.sequelize, ctx.client.workflow, {
    id: args.deliveryId,
    merchantId: args.merchantId,
    taskQueue: ctx.info.taskQueue,
  });
}

export async function cancelDeliveries(deps: { sequelize: Sequelize }, args: { deliveryIds: string[] }): Promise<void> {
  const { sequelize } = deps;
  await sequelize.transaction(async (transaction) => {
    for (const id of args.deliveryIds) await deliveryStore.closeDelivery(sequelize, id, 'CANCELLED', transaction);
  });
}

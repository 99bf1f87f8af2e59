/**
 * Activities of the WebhookReplay workflow (a re-enabled endpoint gets what it missed): prepare
 * the replay's deliveries, start the WebhookDelivery workflow of one whose first attempt failed
 * (it reads that recorded attempt and goes on with the retries), and close the ones a disable
 * in the middle of the replay left unsent (CANCELLED: the next re-enable replays them).
 */
import { Context } from '@temporalio/activity';
import type { Sequelize } from 'sequelize';
import { deliveryStore, replayStore, startDeliveryWorkflow } from '../../db/events';

export function createReplayActivities(sequelize: Sequelize) {
  async function prepareReplay(args: { replayId: string; webhookId: string; since: string }): Promise<string[]> {
    return replayStore.prepareReplay(sequelize, args);
  }

  async function startDelivery(args: { deliveryId: string; merchantId: string }): Promise<void> {
    const ctx = Context.current();
    await startDeliveryWorkflow(sequelize, ctx.client.workflow, {
      id: args.deliveryId,
      merchantId: args.merchantId,
      taskQueue: ctx.info.taskQueue,
    });
  }

  async function cancelDeliveries(args: { deliveryIds: string[] }): Promise<void> {
    await sequelize.transaction(async (transaction) => {
      for (const id of args.deliveryIds) await deliveryStore.closeDelivery(sequelize, id, 'CANCELLED', transaction);
    });
  }

  return { prepareReplay, startDelivery, cancelDeliveries };
}

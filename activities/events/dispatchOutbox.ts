import { Context } from '@temporalio/activity';
import type { Sequelize } from 'sequelize';
import { deliveryStore, startDeliveryWorkflow } from '../../db/events';
import { dispatchEvents } from './outboxDispatch';

/**
 * One round of the OutboxDispatcher. It heartbeats all along (its heartbeat timeout is short,
 * workflows/events/outboxDispatcher.ts): a round whose worker died is retried within seconds,
 * and a live but slow round is never taken for a dead one.
 */
export async function dispatchOutbox(deps: { sequelize: Sequelize }, args: { limit: number }): Promise<number> {
  const ctx = Context.current();
  ctx.heartbeat();
  const { events } = await whileHeartbeating(ctx, dispatchEvents(deps.sequelize, args));
  await startPendingDeliveries(deps.sequelize, ctx);
  return events;
}

/**
 * The sweep: starts the workflow of every PENDING delivery that has none and whose first-attempt
 * lease expired or never was (activities/events/firstAttempts.ts), e.g. one whose worker died
 * between its commit and its send.
 */
async function startPendingDeliveries(sequelize: Sequelize, ctx: Context): Promise<void> {
  const pending = await whileHeartbeating(ctx, deliveryStore.withoutWorkflow(sequelize));
  const start = (d: { id: string; merchantId: string }) =>
    startDeliveryWorkflow(sequelize, ctx.client.workflow, {
      id: d.id,
      merchantId: d.merchantId,
      taskQueue: ctx.info.taskQueue,
    });
  // A few starts at a time: a burst of events must not queue behind one another.
  for (let i = 0; i < pending.length; i += 20) {
    await Promise.all(pending.slice(i, i + 20).map(start));
    ctx.heartbeat();
  }
}

/**
 * Heartbeats every second while `work` (one long await: a transaction, a query) runs; the SDK
 * sends at most one heartbeat per throttle interval, so this costs nothing more.
 */
async function whileHeartbeating<T>(ctx: Context, work: Promise<T>): Promise<T> {
  const timer = setInterval(() => ctx.heartbeat(), 1_000);
  try {
    return await work;
  } finally {
    clearInterval(timer);
    ctx.heartbeat();
  }
}

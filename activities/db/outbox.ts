/**
 * Durable event outbox: events are written in the same DB transaction as the state change that
 * causes them, keyed so a retried activity records each event once. Webhook delivery reads here.
 */
import crypto from 'node:crypto';
import type { Transaction } from 'sequelize';
import { Context } from '@temporalio/activity';
import { OutboxEvent } from '../../db/models';
import { dispatcherWorkflowId, outboxKickSignal } from '../../workflows/webhook/definitions';

export interface OutboxEventInput {
  type: string;
  merchantId: string;
  aggregateType: string;
  aggregateId: string;
  payload: Record<string, unknown>;
}

/**
 * Wakes this task queue's outbox dispatcher once the transaction commits, so deliveries start at
 * once; if the signal is lost the dispatcher's 2-second poll still finds the event.
 */
function kickDispatcherAfterCommit(transaction: Transaction): void {
  let ctx: Context;
  try {
    ctx = Context.current();
  } catch {
    return; // not inside an activity (e.g. a script): the poll will pick the event up
  }
  transaction.afterCommit(() => {
    ctx.client.workflow
      .getHandle(dispatcherWorkflowId(ctx.info.taskQueue))
      .signal(outboxKickSignal)
      .catch(() => undefined);
  });
}

export async function recordEvent(event: OutboxEventInput, transaction: Transaction): Promise<void> {
  kickDispatcherAfterCommit(transaction);
  await OutboxEvent.findOrCreate({
    where: { dedupKey: `${event.type}:${event.aggregateId}` },
    defaults: {
      id: crypto.randomUUID(),
      dedupKey: `${event.type}:${event.aggregateId}`,
      merchantId: event.merchantId,
      type: event.type,
      aggregateType: event.aggregateType,
      aggregateId: event.aggregateId,
      payload: event.payload,
      dispatchedAt: null,
    },
    transaction,
  });
}

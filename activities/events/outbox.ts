/**
 * Durable event outbox: events are written in the same DB transaction as the state change that
 * causes them, keyed so a retried activity records each event once. Webhook delivery reads here.
 */
import crypto from 'node:crypto';
import type { Sequelize, Transaction } from 'sequelize';
import { Context } from '@temporalio/activity';
import { outboxStore, startDeliveryWorkflow } from '../../db/events';
import { workflowHandle } from '../../core/temporal/workflows';
import { dispatcherWorkflowId, outboxDispatcherWorkflow, outboxKickSignal } from '../../workflows/events/definitions';
import { dispatchEvents } from './outboxDispatch';

export interface OutboxEventInput {
  type: string;
  merchantId: string;
  aggregateType: string;
  aggregateId: string;
  /** One event per key; default `<type>:<aggregateId>`. A charge's refunds each have their own event. */
  dedupKey?: string;
  payload: Record<string, unknown>;
}

/** At most one wake-up signal per dispatcher per this many ms from one worker process. */
const KICK_EVERY_MS = 250;
const kicks = new Map<string, { lastAt: number; scheduled: boolean }>();
/**
 * A commit with at most this many new events delivers them itself; a bigger one (a payout slice
 * settles thousands) leaves them to the dispatcher, which pages through them.
 */
const DIRECT_DISPATCH_MAX_EVENTS = 10;

/**
 * Wakes this task queue's outbox dispatcher. Wake-ups are coalesced: a burst of commits (10,000
 * payout items) sends a few signals, not one each — a singleton workflow must never take one
 * signal per event. If a wake-up is lost the dispatcher's 2-second poll still finds the event.
 */
function kickDispatcher(ctx: Context): void {
  const workflowId = dispatcherWorkflowId(ctx.info.taskQueue);
  const state = kicks.get(workflowId) ?? { lastAt: 0, scheduled: false };
  kicks.set(workflowId, state);
  if (state.scheduled) return; // a wake-up is already on its way and will see this commit
  const send = () => {
    state.scheduled = false;
    state.lastAt = Date.now();
    workflowHandle(ctx.client, outboxDispatcherWorkflow, workflowId)
      .signal(outboxKickSignal)
      .catch(() => undefined);
  };
  const wait = state.lastAt + KICK_EVERY_MS - Date.now();
  if (wait <= 0) return send();
  state.scheduled = true;
  setTimeout(send, wait).unref();
}

/**
 * Once the transaction commits, its events go out without waiting for the dispatcher: a few
 * events are turned into deliveries here and their workflows started at once (eagerly, on this
 * worker); many events wake the dispatcher instead. The outbox stays the durable path: if this
 * process dies or anything here fails, the events (or deliveries not yet started) are still
 * there, and the dispatcher, woken now or by its 2-second poll, finishes the job.
 */
function deliverAfterCommit(transaction: Transaction, sequelize: Sequelize, eventIds: string[]): void {
  let ctx: Context;
  try {
    ctx = Context.current();
  } catch {
    return; // not inside an activity (e.g. a script): the poll will pick the events up
  }
  transaction.afterCommit(() => {
    if (eventIds.length === 0 || eventIds.length > DIRECT_DISPATCH_MAX_EVENTS) return kickDispatcher(ctx);
    void dispatchEvents(sequelize, { limit: eventIds.length, eventIds })
      .then(({ deliveries }) =>
        Promise.all(
          deliveries.map((d) =>
            startDeliveryWorkflow(
              sequelize,
              ctx.client.workflow,
              { id: d.id, merchantId: d.merchantId, taskQueue: ctx.info.taskQueue },
              { eager: true },
            ),
          ),
        ),
      )
      .catch(() => kickDispatcher(ctx));
  });
}

export async function recordEvent(event: OutboxEventInput, transaction: Transaction): Promise<void> {
  await recordEvents([event], transaction);
}

/**
 * Records many events in one statement (a payout slice settles hundreds of items at once), each
 * once per dedup key; if anyone subscribed to any of them, they go out after the commit
 * (deliverAfterCommit).
 */
export async function recordEvents(events: OutboxEventInput[], transaction: Transaction): Promise<void> {
  if (events.length === 0) return;
  const sequelize = outboxStore.outboxDatabase();
  const kinds = [...new Map(events.map((e) => [`${e.merchantId}|${e.type}`, e])).values()];
  // The insert and "did anyone subscribe to any of these?" in one round trip.
  const row = await outboxStore.insertEvents(
    sequelize,
    events.map((e) => ({
      id: crypto.randomUUID(),
      dedupKey: e.dedupKey ?? `${e.type}:${e.aggregateId}`,
      merchantId: e.merchantId,
      type: e.type,
      aggregateType: e.aggregateType,
      aggregateId: e.aggregateId,
      payload: e.payload,
    })),
    kinds,
    transaction,
  );
  if (row.subscribed) deliverAfterCommit(transaction, sequelize, row.inserted);
}

/**
 * Durable event outbox: events are written in the same DB transaction as the state change that
 * causes them, keyed so a retried activity records each event once. Webhook delivery reads here.
 */
import crypto from 'node:crypto';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { Context } from '@temporalio/activity';
import { OutboxEvent } from '../../db/models';
import { startDeliveryWorkflow } from '../../db/events/deliveryWorkflows';
import { dispatcherWorkflowId, outboxKickSignal } from '../../workflows/events/definitions';
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
    ctx.client.workflow
      .getHandle(workflowId)
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
              { id: d.id, merchantId: d.merchant_id, taskQueue: ctx.info.taskQueue },
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
  const sequelize = OutboxEvent.sequelize as Sequelize;
  const kinds = [...new Map(events.map((e) => [`${e.merchantId}|${e.type}`, e])).values()];
  // The insert and "did anyone subscribe to any of these?" in one round trip.
  const [row] = await sequelize.query<{ inserted: string[]; subscribed: boolean }>(
    `WITH inserted AS (
       INSERT INTO outbox_events (id, dedup_key, merchant_id, type, aggregate_type, aggregate_id, payload, created_at)
       SELECT *, clock_timestamp() FROM unnest(ARRAY[:ids]::uuid[], ARRAY[:dedupKeys]::text[], ARRAY[:merchantIds]::uuid[], ARRAY[:types]::text[],
         ARRAY[:aggregateTypes]::text[], ARRAY[:aggregateIds]::text[], ARRAY[:payloads]::jsonb[])
       ON CONFLICT (dedup_key) DO NOTHING RETURNING id)
     SELECT (SELECT coalesce(array_agg(id::text), '{}') FROM inserted) AS inserted, EXISTS (
       SELECT 1 FROM webhook_endpoints w JOIN unnest(ARRAY[:kindMerchants]::uuid[], ARRAY[:kindTypes]::text[]) AS k(merchant_id, type)
         ON w.merchant_id = k.merchant_id AND k.type = ANY(w.events)
       WHERE w.active) AS subscribed`,
    {
      replacements: {
        ids: events.map(() => crypto.randomUUID()),
        dedupKeys: events.map((e) => e.dedupKey ?? `${e.type}:${e.aggregateId}`),
        merchantIds: events.map((e) => e.merchantId),
        types: events.map((e) => e.type),
        aggregateTypes: events.map((e) => e.aggregateType),
        aggregateIds: events.map((e) => e.aggregateId),
        payloads: events.map((e) => JSON.stringify(e.payload)),
        kindMerchants: kinds.map((e) => e.merchantId),
        kindTypes: kinds.map((e) => e.type),
      },
      type: QueryTypes.SELECT,
      transaction,
    },
  );
  if (row?.subscribed) deliverAfterCommit(transaction, sequelize, row.inserted);
}

/**
 * Durable event outbox: events are written in the same DB transaction as the state change that
 * causes them, keyed so a retried activity records each event once. Webhook delivery reads here.
 */
import crypto from 'node:crypto';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { Context } from '@temporalio/activity';
import { OutboxEvent } from '../../db/models';
import { dispatcherWorkflowId, outboxKickSignal } from '../../workflows/webhook/definitions';

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
 * Wakes this task queue's outbox dispatcher once the transaction commits, so deliveries start at
 * once. Wake-ups are coalesced: a burst of commits (10,000 payout items) sends a few signals,
 * not one each — a singleton workflow must never take one signal per event. If a wake-up is
 * lost the dispatcher's 2-second poll still finds the event.
 */
function kickDispatcherAfterCommit(transaction: Transaction): void {
  let ctx: Context;
  try {
    ctx = Context.current();
  } catch {
    return; // not inside an activity (e.g. a script): the poll will pick the event up
  }
  transaction.afterCommit(() => {
    const workflowId = dispatcherWorkflowId(ctx.info.taskQueue);
    const state = kicks.get(workflowId) ?? { lastAt: 0, scheduled: false };
    kicks.set(workflowId, state);
    if (state.scheduled) return; // a wake-up is already on its way and will see this commit
    const send = () => {
      state.scheduled = false;
      state.lastAt = Date.now();
      ctx.client.workflow.getHandle(workflowId).signal(outboxKickSignal).catch(() => undefined);
    };
    const wait = state.lastAt + KICK_EVERY_MS - Date.now();
    if (wait <= 0) return send();
    state.scheduled = true;
    setTimeout(send, wait).unref();
  });
}

export async function recordEvent(event: OutboxEventInput, transaction: Transaction): Promise<void> {
  await recordEvents([event], transaction);
}

/**
 * Records many events in one statement (a payout slice settles hundreds of items at once), each
 * once per dedup key; the dispatcher is woken once if anyone subscribed to any of them.
 */
export async function recordEvents(events: OutboxEventInput[], transaction: Transaction): Promise<void> {
  if (events.length === 0) return;
  const sequelize = OutboxEvent.sequelize as Sequelize;
  const kinds = [...new Map(events.map((e) => [`${e.merchantId}|${e.type}`, e])).values()];
  // The insert and "did anyone subscribe to any of these?" in one round trip.
  const [row] = await sequelize.query<{ subscribed: boolean }>(
    `WITH inserted AS (
       INSERT INTO outbox_events (id, dedup_key, merchant_id, type, aggregate_type, aggregate_id, payload, created_at)
       SELECT *, clock_timestamp() FROM unnest(ARRAY[:ids]::uuid[], ARRAY[:dedupKeys]::text[], ARRAY[:merchantIds]::uuid[], ARRAY[:types]::text[],
         ARRAY[:aggregateTypes]::text[], ARRAY[:aggregateIds]::text[], ARRAY[:payloads]::jsonb[])
       ON CONFLICT (dedup_key) DO NOTHING RETURNING 1)
     SELECT EXISTS (
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
  if (row?.subscribed) kickDispatcherAfterCommit(transaction);
}

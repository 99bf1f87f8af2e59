/** The outbox_events table (events to deliver to merchants' webhooks): its one writer and the way to read it. */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { OutboxEvent } from './outboxEvent';

/** Whether the merchant has an event with this id. */
export async function isMerchantEvent(sequelize: Sequelize, merchantId: string, eventId: string): Promise<boolean> {
  const [event] = await sequelize.query(
    `SELECT 1 FROM outbox_events WHERE id = :eventId AND merchant_id = :merchantId`,
    {
      replacements: { eventId, merchantId },
      type: QueryTypes.SELECT,
    },
  );
  return Boolean(event);
}

/** Events not dispatched yet, and the age of the oldest of them in seconds (null when none). */
export async function pendingSummary(
  sequelize: Sequelize,
): Promise<{ pending: number; oldestAgeSeconds: number | null }> {
  // The partial index outbox_events_undispatched makes this a scan of the pending rows only.
  const [row] = await sequelize.query<{ pending: string; oldest_age_seconds: number | null }>(
    'SELECT count(*) AS pending, EXTRACT(EPOCH FROM now() - min(created_at))::float8 AS oldest_age_seconds FROM outbox_events WHERE dispatched_at IS NULL',
    { type: QueryTypes.SELECT },
  );
  return { pending: Number(row?.pending ?? 0), oldestAgeSeconds: row?.oldest_age_seconds ?? null };
}

export interface NewOutboxEvent {
  id: string;
  dedupKey: string;
  merchantId: string;
  type: string;
  aggregateType: string;
  aggregateId: string;
  payload: Record<string, unknown>;
}

/**
 * Inserts the events (each once per dedup key) and asks, in the same round trip, whether any
 * active endpoint of theirs subscribed to any of `kinds` (merchant and event type). Answers the
 * ids inserted now and that answer.
 */
export async function insertEvents(
  sequelize: Sequelize,
  events: NewOutboxEvent[],
  kinds: { merchantId: string; type: string }[],
  transaction: Transaction,
): Promise<{ inserted: string[]; subscribed: boolean }> {
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
        ids: events.map((e) => e.id),
        dedupKeys: events.map((e) => e.dedupKey),
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
  return { inserted: row?.inserted ?? [], subscribed: Boolean(row?.subscribed) };
}

export interface OutboxEventRow {
  id: string;
  merchantId: string;
  type: string;
  aggregateType: string;
  aggregateId: string;
  payload: unknown;
  createdAt: Date;
}

/**
 * Up to `limit` undispatched events (only `eventIds` when given), oldest first, under FOR UPDATE
 * SKIP LOCKED: two dispatchers never take the same event.
 */
export async function takeUndispatched(
  sequelize: Sequelize,
  args: { limit: number; eventIds?: string[] },
  transaction: Transaction,
): Promise<OutboxEventRow[]> {
  const events = await sequelize.query<{
    id: string;
    merchant_id: string;
    type: string;
    aggregate_type: string;
    aggregate_id: string;
    payload: unknown;
    created_at: Date;
  }>(
    `SELECT id, merchant_id, type, aggregate_type, aggregate_id, payload, created_at FROM outbox_events
     WHERE dispatched_at IS NULL ${args.eventIds ? 'AND id IN (:eventIds)' : ''} ORDER BY created_at LIMIT :limit FOR UPDATE SKIP LOCKED`,
    { replacements: { limit: args.limit, eventIds: args.eventIds ?? [] }, type: QueryTypes.SELECT, transaction },
  );
  return events.map((e) => ({
    id: e.id,
    merchantId: e.merchant_id,
    type: e.type,
    aggregateType: e.aggregate_type,
    aggregateId: e.aggregate_id,
    payload: e.payload,
    createdAt: new Date(e.created_at),
  }));
}

export async function markDispatched(sequelize: Sequelize, ids: string[], transaction: Transaction): Promise<void> {
  await sequelize.query(`UPDATE outbox_events SET dispatched_at = now() WHERE id IN (:ids)`, {
    replacements: { ids },
    transaction,
  });
}

/** The database the outbox is bound to (recordEvent gets only its caller's transaction). */
export function outboxDatabase(): Sequelize {
  return OutboxEvent.sequelize as Sequelize;
}

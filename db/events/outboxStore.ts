/** The outbox_events table (events to deliver to merchants' webhooks): its one writer and the way to read it. */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { OutboxEvent } from './outboxEvent';
import { insertDeliveriesOfSql } from './deliveryStore';

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
 * Inserts the events (each once per dedup key) and, in the same statement, their deliveries
 * (deliveryStore.insertDeliveriesOfSql): an event leaves here dispatched. Answers the deliveries
 * made now (none for an event recorded before, e.g. by a retried activity). With `leaseSeconds`
 * they are leased to the caller for their first attempt.
 */
export async function insertEvents(
  sequelize: Sequelize,
  events: NewOutboxEvent[],
  opts: { leaseSeconds: number | null },
  transaction: Transaction,
): Promise<{ id: string; merchantId: string }[]> {
  const [row] = await sequelize.query<{ deliveries: { id: string; merchantId: string }[] }>(
    `WITH input AS (
       SELECT * FROM unnest(ARRAY[:ids]::uuid[], ARRAY[:dedupKeys]::text[], ARRAY[:merchantIds]::uuid[], ARRAY[:types]::text[],
         ARRAY[:aggregateTypes]::text[], ARRAY[:aggregateIds]::text[], ARRAY[:payloads]::text[])
         AS t(id, dedup_key, merchant_id, type, aggregate_type, aggregate_id, payload_text)),
     inserted AS (
       INSERT INTO outbox_events (id, dedup_key, merchant_id, type, aggregate_type, aggregate_id, payload, created_at, dispatched_at)
       SELECT id, dedup_key, merchant_id, type, aggregate_type, aggregate_id, payload_text::jsonb, clock_timestamp(), clock_timestamp()
       FROM input ON CONFLICT (dedup_key) DO NOTHING RETURNING id, created_at),
     events AS (SELECT i.id, i.merchant_id, i.type, i.aggregate_type, i.aggregate_id, i.payload_text, n.created_at
       FROM inserted n JOIN input i ON i.id = n.id),
     deliveries AS (${insertDeliveriesOfSql('events', opts.leaseSeconds === null ? undefined : 'leaseSeconds')})
     SELECT coalesce(json_agg(json_build_object('id', id, 'merchantId', merchant_id)), '[]'::json) AS deliveries FROM deliveries`,
    {
      replacements: {
        ids: events.map((e) => e.id),
        dedupKeys: events.map((e) => e.dedupKey),
        merchantIds: events.map((e) => e.merchantId),
        types: events.map((e) => e.type),
        aggregateTypes: events.map((e) => e.aggregateType),
        aggregateIds: events.map((e) => e.aggregateId),
        payloads: events.map((e) => JSON.stringify(e.payload)),
        leaseSeconds: opts.leaseSeconds,
      },
      type: QueryTypes.SELECT,
      transaction,
    },
  );
  return row?.deliveries ?? [];
}

/**
 * The ids of up to `limit` undispatched events, oldest first, under FOR UPDATE SKIP LOCKED: two
 * dispatchers never take the same event.
 */
export async function takeUndispatched(
  sequelize: Sequelize,
  args: { limit: number },
  transaction: Transaction,
): Promise<{ id: string }[]> {
  return sequelize.query<{ id: string }>(
    `SELECT id FROM outbox_events WHERE dispatched_at IS NULL ORDER BY created_at LIMIT :limit FOR UPDATE SKIP LOCKED`,
    { replacements: { limit: args.limit }, type: QueryTypes.SELECT, transaction },
  );
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

/** The outbox_events table (events to deliver to merchants' webhooks): its one writer and the way to read it. */
import { QueryTypes, type Sequelize } from 'sequelize';

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

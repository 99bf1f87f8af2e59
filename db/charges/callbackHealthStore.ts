/**
 * The provider_callback_health table: callbacks received and signature failures per minute,
 * shared by every API process (migration 0021). Its one writer and the way to read it.
 */
import { QueryTypes, type Sequelize } from 'sequelize';

const KEEP = "interval '1 day'";

/** The last hour's sums, and the last callback ever kept. */
export async function lastHour(
  sequelize: Sequelize,
): Promise<{ received: number; failures: number; last: Date | null }> {
  const [row] = await sequelize.query<{
    received: string | null;
    failures: string | null;
    last: Date | null;
  }>(
    `SELECT sum(received) AS received, sum(signature_failures) AS failures,
            (SELECT max(last_received_at) FROM provider_callback_health) AS last
       FROM provider_callback_health WHERE minute > now() - interval '1 hour'`,
    { type: QueryTypes.SELECT },
  );
  return {
    received: Number(row?.received ?? 0),
    failures: Number(row?.failures ?? 0),
    last: row?.last ? new Date(row.last) : null,
  };
}

/** Adds counts to the minute starting at `minute` (epoch ms). */
export async function addCounts(
  sequelize: Sequelize,
  minute: number,
  counts: { received: number; signatureFailures: number; lastReceivedAt: Date | null },
): Promise<void> {
  await sequelize.query(
    `INSERT INTO provider_callback_health (minute, received, signature_failures, last_received_at)
     VALUES (to_timestamp($1 / 1000.0), $2, $3, $4)
     ON CONFLICT (minute) DO UPDATE SET
       received = provider_callback_health.received + EXCLUDED.received,
       signature_failures = provider_callback_health.signature_failures + EXCLUDED.signature_failures,
       last_received_at = GREATEST(provider_callback_health.last_received_at, EXCLUDED.last_received_at)`,
    { bind: [minute, counts.received, counts.signatureFailures, counts.lastReceivedAt] },
  );
}

/** Forgets minutes older than a day. */
export async function forgetOld(sequelize: Sequelize): Promise<void> {
  await sequelize.query(`DELETE FROM provider_callback_health WHERE minute < now() - ${KEEP}`);
}

/**
 * The provider_events table: each provider callback or Pix received, stored once with its FIRST
 * outcome. Its one writer and the way to read it.
 */
import { QueryTypes, type Sequelize } from 'sequelize';

/**
 * Stores the event unless it is stored already; answers the outcome it was stored with, or null
 * when it has none yet (new, or a first handling that did not finish).
 */
export async function storeOnce(
  sequelize: Sequelize,
  event: { id: string; type: string; subject: string | null; payload: unknown },
): Promise<string | null> {
  const first = await sequelize.query<{ outcome: string | null }>(
    `INSERT INTO provider_events (id, type, provider_charge_id, payload) VALUES (:id, :type, :chargeId, :payload)
     ON CONFLICT (id) DO UPDATE SET id = provider_events.id RETURNING outcome`,
    {
      replacements: {
        id: event.id,
        type: event.type,
        chargeId: event.subject,
        payload: JSON.stringify(event.payload),
      },
      type: QueryTypes.SELECT,
    },
  );
  return first[0]?.outcome ?? null;
}

/** Sets the event's outcome unless one is set already; answers the one it keeps (null: no such event). */
export async function settleOutcome(sequelize: Sequelize, id: string, outcome: string): Promise<string | null> {
  const stored = await sequelize.query<{ outcome: string }>(
    `UPDATE provider_events SET outcome = COALESCE(outcome, :outcome) WHERE id = :id RETURNING outcome`,
    { replacements: { outcome, id }, type: QueryTypes.SELECT },
  );
  return stored[0]?.outcome ?? null;
}

/** Which of these events are stored with an outcome (a notification or an earlier sweep took them). */
export async function withOutcome(sequelize: Sequelize, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await sequelize.query<{ id: string }>(
    `SELECT id FROM provider_events WHERE id IN (:ids) AND outcome IS NOT NULL`,
    { replacements: { ids }, type: QueryTypes.SELECT },
  );
  return new Set(rows.map((r) => r.id));
}

/**
 * What a re-enabled endpoint missed while it was disabled, and the deliveries that replay it
 * (rows of webhook_deliveries tagged with the replay's id, written by deliveryStore, the table's
 * owner). Bounded: events at most REPLAY_WINDOW back and REPLAY_MAX_EVENTS of them,
 * so a webhook disabled for months does not flood its receiver on re-enable.
 */
import crypto from 'node:crypto';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { insertReplayDeliveries } from './deliveryStore';

export const REPLAY_WINDOW = '3 days';
export const REPLAY_MAX_EVENTS = 500;

/**
 * The replay's deliveries, oldest event first, made once: a repeated call (a retried activity)
 * answers the ones the first made. An endpoint that is not active (disabled again) gets none.
 *
 * Replayed: the endpoint's subscribed events recorded since `since` (its disable) that went out
 * while it was disabled, and the events of its deliveries CANCELLED since then; never an event
 * that already has a SUCCEEDED or PENDING delivery to it (a second re-enable sends nothing twice).
 */
export async function prepareReplay(
  sequelize: Sequelize,
  replay: { replayId: string; webhookId: string; since: string },
): Promise<string[]> {
  return sequelize.transaction(async (transaction) => {
    const made = await replayDeliveries(sequelize, replay.replayId, transaction);
    if (made.length > 0) return made;
    const [endpoint] = await sequelize.query<{
      merchant_id: string;
      url: string;
      events: string[];
      charge_id: string | null;
    }>(
      `SELECT merchant_id, url, events, charge_id::text AS charge_id FROM webhook_endpoints WHERE id = :webhookId AND active FOR UPDATE`,
      { replacements: { webhookId: replay.webhookId }, type: QueryTypes.SELECT, transaction },
    );
    if (!endpoint) return [];
    const missed = await sequelize.query<{ id: string; original_id: string | null }>(
      `WITH bound AS (SELECT GREATEST(CAST(:since AS timestamptz), now() - interval '${REPLAY_WINDOW}') AS lower)
       SELECT e.id,
         (SELECT o.id FROM webhook_deliveries o WHERE o.event_id = e.id AND o.webhook_id = :webhookId AND o.resend_of IS NULL) AS original_id
       FROM outbox_events e, bound
       WHERE e.merchant_id = :merchantId AND e.type IN (:types) AND e.dispatched_at IS NOT NULL
         AND (CAST(:chargeId AS text) IS NULL OR (e.aggregate_type = 'charge' AND e.aggregate_id = :chargeId))
         AND (e.created_at >= bound.lower OR EXISTS (
           SELECT 1 FROM webhook_deliveries c WHERE c.event_id = e.id AND c.webhook_id = :webhookId
             AND c.status = 'CANCELLED' AND c.completed_at >= bound.lower))
         AND NOT EXISTS (
           SELECT 1 FROM webhook_deliveries s WHERE s.event_id = e.id AND s.webhook_id = :webhookId
             AND s.status IN ('SUCCEEDED', 'PENDING'))
       ORDER BY e.created_at, e.id LIMIT ${REPLAY_MAX_EVENTS}`,
      {
        replacements: {
          since: replay.since,
          webhookId: replay.webhookId,
          merchantId: endpoint.merchant_id,
          types: endpoint.events,
          chargeId: endpoint.charge_id,
        },
        type: QueryTypes.SELECT,
        transaction,
      },
    );
    const replayed = missed.map((e) => ({ deliveryId: crypto.randomUUID(), eventId: e.id, resendOf: e.original_id }));
    await insertReplayDeliveries(
      sequelize,
      { replayId: replay.replayId, webhookId: replay.webhookId, merchantId: endpoint.merchant_id, url: endpoint.url },
      replayed,
      transaction,
    );
    return replayed.map((r) => r.deliveryId);
  });
}

async function replayDeliveries(sequelize: Sequelize, replayId: string, transaction: Transaction): Promise<string[]> {
  const rows = await sequelize.query<{ id: string }>(
    `SELECT d.id FROM webhook_deliveries d JOIN outbox_events e ON e.id = d.event_id
     WHERE d.replay_id = :replayId ORDER BY e.created_at, e.id`,
    { replacements: { replayId }, type: QueryTypes.SELECT, transaction },
  );
  return rows.map((r) => r.id);
}

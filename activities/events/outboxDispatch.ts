/**
 * Committed outbox events → webhook deliveries (one per subscribed active endpoint), the one way
 * both callers do it: the OutboxDispatcher's page (`dispatchOutbox`), and the committing
 * activity's own events right after its commit (activities/events/outbox.ts), which spares a charge's
 * events the dispatcher's round trip. Events are taken with FOR UPDATE SKIP LOCKED and marked
 * dispatched in the same transaction, and a delivery is keyed (event, endpoint), so whichever
 * caller takes an event, its deliveries exist once.
 */
import crypto from 'node:crypto';
import { QueryTypes, type Sequelize } from 'sequelize';

interface OutboxRow {
  id: string;
  merchant_id: string;
  type: string;
  aggregate_type: string;
  aggregate_id: string;
  payload: unknown;
  created_at: Date;
}

export interface CreatedDelivery {
  id: string;
  merchant_id: string;
}

/**
 * Takes up to `limit` undispatched events (only `eventIds` when given), oldest first, and writes
 * their deliveries. Answers how many events it took and the deliveries it created.
 */
export async function dispatchEvents(
  sequelize: Sequelize,
  args: { limit: number; eventIds?: string[] },
): Promise<{ events: number; deliveries: CreatedDelivery[] }> {
  return sequelize.transaction(async (transaction) => {
    const events = await sequelize.query<OutboxRow>(
      `SELECT id, merchant_id, type, aggregate_type, aggregate_id, payload, created_at FROM outbox_events
       WHERE dispatched_at IS NULL ${args.eventIds ? 'AND id IN (:eventIds)' : ''} ORDER BY created_at LIMIT :limit FOR UPDATE SKIP LOCKED`,
      { replacements: { limit: args.limit, eventIds: args.eventIds ?? [] }, type: QueryTypes.SELECT, transaction },
    );
    if (events.length === 0) return { events: 0, deliveries: [] };
    // Every endpoint of the page's merchants in one query, matched here: a page of 10,000
    // payout items' events used to cost 10,000 lookups.
    const merchantIds = [...new Set(events.map((e) => e.merchant_id))];
    const candidates = await sequelize.query<{
      id: string;
      url: string;
      merchant_id: string;
      events: string[];
      charge_id: string | null;
    }>(
      `SELECT id, url, merchant_id, events, charge_id::text AS charge_id FROM webhook_endpoints WHERE merchant_id IN (:merchantIds) AND active ORDER BY created_at, id`,
      { replacements: { merchantIds }, type: QueryTypes.SELECT, transaction },
    );
    const deliveries: CreatedDelivery[] = [];
    for (const e of events) {
      const endpoints = candidates.filter(
        (w) =>
          w.merchant_id === e.merchant_id &&
          w.events.includes(e.type) &&
          (w.charge_id === null || (e.aggregate_type === 'charge' && w.charge_id === e.aggregate_id)),
      );
      // One body per event: every endpoint and every retry get the same bytes and eventId.
      const body = JSON.stringify({
        eventId: e.id,
        type: e.type,
        createdAt: new Date(e.created_at).toISOString(),
        data: e.payload,
      });
      for (const endpoint of endpoints) {
        const created = await sequelize.query<CreatedDelivery>(
          `INSERT INTO webhook_deliveries (id, event_id, webhook_id, merchant_id, event_type, url, body, status)
           VALUES (:id, :eventId, :webhookId, :merchantId, :type, :url, :body, 'PENDING')
           ON CONFLICT (event_id, webhook_id) WHERE resend_of IS NULL DO NOTHING RETURNING id, merchant_id`,
          {
            replacements: {
              id: crypto.randomUUID(),
              eventId: e.id,
              webhookId: endpoint.id,
              merchantId: e.merchant_id,
              type: e.type,
              url: endpoint.url,
              body,
            },
            type: QueryTypes.SELECT,
            transaction,
          },
        );
        deliveries.push(...created);
      }
    }
    await sequelize.query(`UPDATE outbox_events SET dispatched_at = now() WHERE id IN (:ids)`, {
      replacements: { ids: events.map((e) => e.id) },
      transaction,
    });
    return { events: events.length, deliveries };
  });
}

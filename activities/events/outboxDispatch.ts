/**
 * Committed outbox events → webhook deliveries (one per subscribed active endpoint), the one way
 * both callers do it: the OutboxDispatcher's page (`dispatchOutbox`), and the committing
 * activity's own events right after its commit (activities/events/outbox.ts), which spares a charge's
 * events the dispatcher's round trip. Events are taken with FOR UPDATE SKIP LOCKED and marked
 * dispatched in the same transaction, and a delivery is keyed (event, endpoint), so whichever
 * caller takes an event, its deliveries exist once.
 */
import crypto from 'node:crypto';
import type { Sequelize } from 'sequelize';
import { deliveryStore, outboxStore, webhookEndpointStore } from '../../db/events';

export interface CreatedDelivery {
  id: string;
  merchantId: string;
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
    const events = await outboxStore.takeUndispatched(sequelize, args, transaction);
    if (events.length === 0) return { events: 0, deliveries: [] };
    // Every endpoint of the page's merchants in one query, matched here: a page of 10,000
    // payout items' events used to cost 10,000 lookups.
    const merchantIds = [...new Set(events.map((e) => e.merchantId))];
    const candidates = await webhookEndpointStore.activeEndpointsOf(sequelize, merchantIds, transaction);
    const deliveries: CreatedDelivery[] = [];
    for (const e of events) {
      const endpoints = candidates.filter(
        (w) =>
          w.merchantId === e.merchantId &&
          w.events.includes(e.type) &&
          (w.chargeId === null || (e.aggregateType === 'charge' && w.chargeId === e.aggregateId)),
      );
      // One body per event: every endpoint and every retry get the same bytes and eventId.
      const body = JSON.stringify({
        eventId: e.id,
        type: e.type,
        createdAt: e.createdAt.toISOString(),
        data: e.payload,
      });
      for (const endpoint of endpoints) {
        const created = await deliveryStore.createDelivery(
          sequelize,
          {
            id: crypto.randomUUID(),
            eventId: e.id,
            webhookId: endpoint.id,
            merchantId: e.merchantId,
            type: e.type,
            url: endpoint.url,
            body,
          },
          transaction,
        );
        deliveries.push(...created);
      }
    }
    await outboxStore.markDispatched(
      sequelize,
      events.map((e) => e.id),
      transaction,
    );
    return { events: events.length, deliveries };
  });
}

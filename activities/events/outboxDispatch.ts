/**
 * Outbox events left undispatched → webhook deliveries, for the OutboxDispatcher's page
 * (`dispatchOutbox`). Events are born dispatched now: recordEvents writes their deliveries in the
 * committing transaction (activities/events/outbox.ts). Undispatched ones are those an older
 * worker recorded during a rolling upgrade; they get their deliveries here, by the same statement
 * (deliveryStore.insertDeliveriesOfSql). Events are taken with FOR UPDATE SKIP LOCKED and marked
 * dispatched in the same transaction, and a delivery is keyed (event, endpoint), so whoever takes
 * an event, its deliveries exist once.
 */
import type { Sequelize } from 'sequelize';
import { deliveryStore, outboxStore } from '../../db/events';

/** Takes up to `limit` undispatched events, oldest first, and writes their deliveries; answers how many events it took. */
export async function dispatchEvents(sequelize: Sequelize, args: { limit: number }): Promise<{ events: number }> {
  return sequelize.transaction(async (transaction) => {
    const events = await outboxStore.takeUndispatched(sequelize, args, transaction);
    if (events.length === 0) return { events: 0 };
    const ids = events.map((e) => e.id);
    await deliveryStore.createDeliveriesOf(sequelize, ids, transaction);
    await outboxStore.markDispatched(sequelize, ids, transaction);
    return { events: events.length };
  });
}

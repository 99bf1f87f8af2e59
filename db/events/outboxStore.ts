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

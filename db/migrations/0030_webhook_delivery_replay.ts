/**
 * The deliveries a re-enabled endpoint's replay made carry its workflow id, so a retried
 * preparation answers the same deliveries in the same order instead of making others.
 */
import type { Migration } from '../migrator';

export const webhookDeliveryReplay: Migration = {
  name: '0030_webhook_delivery_replay',
  async up({ context: sequelize }) {
    await sequelize.query(`
      ALTER TABLE webhook_deliveries ADD COLUMN replay_id TEXT;
      CREATE INDEX webhook_deliveries_replay ON webhook_deliveries (replay_id, created_at) WHERE replay_id IS NOT NULL;
    `);
  },
};

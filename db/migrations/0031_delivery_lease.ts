/**
 * A delivery's first attempt is made by the worker that committed its event, right after the
 * commit (activities/events/firstAttempts.ts). `lease_expires_at` is recorded in that same
 * transaction: until then the dispatcher's sweep leaves the delivery to that worker; past it (the
 * worker died between commit and send), the sweep starts the delivery's workflow as for any other.
 * A delivery the first attempt delivered never gets a workflow, so the sweep's index now covers
 * PENDING deliveries only: delivered ones leave it instead of growing it forever.
 */
import type { Migration } from '../migrator';

export const deliveryLease: Migration = {
  name: '0031_delivery_lease',
  async up({ context: sequelize }) {
    await sequelize.query(`
      ALTER TABLE webhook_deliveries ADD COLUMN lease_expires_at TIMESTAMPTZ;
      DROP INDEX webhook_deliveries_unstarted;
      CREATE INDEX webhook_deliveries_unstarted ON webhook_deliveries (created_at) WHERE NOT workflow_started AND status = 'PENDING';
    `);
  },
};

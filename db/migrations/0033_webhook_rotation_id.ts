/**
 * A secret rotation is keyed by the idempotency claim's resource id: the endpoint keeps the id of
 * its last rotation, so a same-key retry that took the claim over answers that rotation instead of
 * rotating again (which would end the oldest secret's overlap at once).
 */
import type { Migration } from '../migrator';

export const webhookRotationId: Migration = {
  name: '0033_webhook_rotation_id',
  async up({ context: sequelize }) {
    await sequelize.query(`ALTER TABLE webhook_endpoints ADD COLUMN rotation_id UUID;`);
  },
};

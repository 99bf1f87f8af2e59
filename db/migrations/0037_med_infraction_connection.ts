/**
 * The PSP account an infraction was read from (issue 37, MED per connection): null for the
 * platform's account (PIX_API_*), else the merchant's own connection whose account received the
 * disputed Pix. The infraction is answered through that same account, and the sync reads each
 * account on from its own newest infraction.
 *
 * Rows from before are given their charge's account: the account that received the payment is the
 * one the infraction concerns (a charge's psp_connection_id is fixed at issue, migration 0035).
 */
import type { Migration } from '../migrator';

export const medInfractionConnection: Migration = {
  name: '0037_med_infraction_connection',
  async up({ context: sequelize }) {
    await sequelize.query(`
      ALTER TABLE med_infractions ADD COLUMN psp_connection_id UUID REFERENCES psp_connections(id);
      UPDATE med_infractions m SET psp_connection_id = c.psp_connection_id
        FROM charges c WHERE c.id = m.charge_id AND c.psp_connection_id IS NOT NULL;
      CREATE INDEX med_infractions_connection_opened ON med_infractions (psp_connection_id, opened_at);
    `);
  },
};

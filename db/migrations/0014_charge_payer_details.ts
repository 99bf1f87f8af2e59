/**
 * Who a charge is addressed to, as the create request named them (application API `payer`:
 * name, taxId, email). Boletos are registered in the payer's name. `payer_snapshot` stays what
 * the provider reported of whoever actually paid.
 */
import type { Migration } from '../migrator';

export const chargePayerDetails: Migration = {
  name: '0014_charge_payer_details',
  async up({ context: sequelize }) {
    await sequelize.query(`ALTER TABLE charges ADD COLUMN payer_details JSONB`);
  },
};

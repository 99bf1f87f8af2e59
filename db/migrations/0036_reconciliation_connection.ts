/**
 * A reconciliation of one PSP connection (issue 37): a connected merchant's money is at its own
 * account, so the daily run compares that account (its saldo, its Pix received, its sends) with the
 * merchant's ledger mirror, one report per connection and day, beside the platform account's
 * per-merchant reports. `psp_connection_id` null: the platform's account, as before.
 *
 * The daily run's once-per-day rule becomes two: one platform report per merchant and day, one
 * connection report per connection and day (a merchant may have both on a day: money it had before
 * connecting stays at the platform's account).
 */
import type { Migration } from '../migrator';

export const reconciliationConnection: Migration = {
  name: '0036_reconciliation_connection',
  async up({ context: sequelize }) {
    await sequelize.query(`
      ALTER TABLE reconciliations ADD COLUMN psp_connection_id UUID REFERENCES psp_connections(id);
      DROP INDEX reconciliations_daily_once;
      CREATE UNIQUE INDEX reconciliations_daily_once ON reconciliations (merchant_id, from_date)
        WHERE scheduled AND psp_connection_id IS NULL;
      CREATE UNIQUE INDEX reconciliations_daily_connection_once ON reconciliations (psp_connection_id, from_date)
        WHERE scheduled AND psp_connection_id IS NOT NULL;
    `);
  },
};

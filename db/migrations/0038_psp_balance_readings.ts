/**
 * The last reading of each connected account's balance at its PSP (issue 37, Deliver 5): the
 * worker reads every active connection's `saldo` on a Schedule (workflows/connections/
 * balanceReading.ts; the API never calls a PSP) and keeps here only the latest, with the merchant's
 * ledger mirror (available + reserved + blocked) and its reserved part read at the same instant, so
 * what the dashboard shows and what bounds a payout are one consistent pair, not a saldo beside a
 * ledger read at another time. One row per connection, replaced by each reading.
 */
import type { Migration } from '../migrator';

export const pspBalanceReadings: Migration = {
  name: '0038_psp_balance_readings',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE TABLE psp_balance_readings (
        psp_connection_id UUID PRIMARY KEY REFERENCES psp_connections(id),
        saldo_cents BIGINT NOT NULL,
        mirror_cents BIGINT NOT NULL,
        reserved_cents BIGINT NOT NULL,
        read_at TIMESTAMPTZ NOT NULL
      );
    `);
  },
};

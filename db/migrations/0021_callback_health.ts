/**
 * Provider callback health, shared by every API process: one row per minute with the callbacks
 * received (signature valid), the signature failures and the last valid callback's time.
 * GET /webhooks/pix-gateway/health sums the last 60 rows. Processes add their counts in one
 * upsert per few seconds (api/charges/callbacks/callbackHealth.ts), not one write per request:
 * the callback route is exempt from the rate limit, so a flood of forged callbacks must not
 * become a flood of writes. Rows older than a day are pruned by the same writer.
 */
import type { Migration } from '../migrator';

export const callbackHealth: Migration = {
  name: '0021_callback_health',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE TABLE provider_callback_health (
        minute TIMESTAMPTZ PRIMARY KEY CHECK (minute = date_trunc('minute', minute)),
        received INTEGER NOT NULL DEFAULT 0 CHECK (received >= 0),
        signature_failures INTEGER NOT NULL DEFAULT 0 CHECK (signature_failures >= 0),
        last_received_at TIMESTAMPTZ
      );
    `);
  },
};

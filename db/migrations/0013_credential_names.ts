/**
 * API credentials created by signed-in people (POST /dashboard/credentials) carry a name the
 * dashboard lists them by ("production", "staging"); older ones have none. Listing a merchant's
 * credentials newest first is an index scan, not a table scan.
 */
import type { Migration } from '../migrator';

export const credentialNames: Migration = {
  name: '0013_credential_names',
  async up({ context: sequelize }) {
    await sequelize.query(`
      ALTER TABLE api_credentials ADD COLUMN name TEXT;
      CREATE INDEX api_credentials_merchant_created ON api_credentials (merchant_id, created_at DESC);
    `);
  },
};

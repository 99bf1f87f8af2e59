/**
 * Platform operators: the gateway's own staff, marked on their user row by the
 * operator's CLI (`user operator`), never through the API. An operator may reconcile the whole
 * platform at once (a reconciliation with no merchant), which needs merchant_id to be optional.
 */
import type { Migration } from '../migrator';

export const platformOperators: Migration = {
  name: '0027_platform_operators',
  async up({ context: sequelize }) {
    await sequelize.query(`
      ALTER TABLE users ADD COLUMN platform_operator BOOLEAN NOT NULL DEFAULT FALSE;
      -- NULL: a platform-wide run, every merchant's books against the whole statement (operators only).
      ALTER TABLE reconciliations ALTER COLUMN merchant_id DROP NOT NULL;
      CREATE INDEX reconciliations_platform_created ON reconciliations (created_at DESC, id DESC) WHERE merchant_id IS NULL;
    `);
  },
};

/**
 * Reconciliations: one row per run of the Reconciliation workflow over a merchant's
 * date range. The row is the report: counts and the differences found; the ledger is only ever
 * changed by the normal settlement paths the workflow hands lost payments to.
 */
import type { Migration } from '../migrator';

export const reconciliations: Migration = {
  name: '0024_reconciliations',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE TABLE reconciliations (
        id UUID PRIMARY KEY,
        merchant_id UUID NOT NULL REFERENCES merchants(id),
        from_date DATE NOT NULL,
        to_date DATE NOT NULL CHECK (to_date >= from_date),
        status TEXT NOT NULL DEFAULT 'RUNNING' CHECK (status IN ('RUNNING','COMPLETED','FAILED')),
        matched_count INTEGER NOT NULL DEFAULT 0,
        missing_in_ledger_count INTEGER NOT NULL DEFAULT 0,
        missing_at_provider_count INTEGER NOT NULL DEFAULT 0,
        amount_mismatch_count INTEGER NOT NULL DEFAULT 0,
        healed_count INTEGER NOT NULL DEFAULT 0,
        differences JSONB NOT NULL DEFAULT '[]'::jsonb,
        failure_reason TEXT,
        requested_by UUID,
        -- Started by the daily schedule (requested_by NULL): one per merchant and day, so a retried run creates none twice.
        scheduled BOOLEAN NOT NULL DEFAULT FALSE,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        completed_at TIMESTAMPTZ
      );
      CREATE UNIQUE INDEX reconciliations_daily_once ON reconciliations (merchant_id, from_date) WHERE scheduled;
      CREATE INDEX reconciliations_merchant_created ON reconciliations (merchant_id, created_at DESC, id DESC);
    `);
  },
};

/**
 * Settlements: a settlement is a label on the withdrawal that moves the money
 * (1:1, withdrawal_id unique), written in the same DB transaction as that withdrawal's
 * reservation. Status, amounts and provider tracking live on the withdrawal row only (no copies).
 * settlement_schedules holds each merchant's automatic settlement config; the Temporal Schedule
 * `settlement-<merchantId>` is what fires it (and its pause state is read from Temporal).
 */
import type { Migration } from '../migrator';

export const settlements: Migration = {
  name: '0025_settlements',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE TABLE settlements (
        id UUID PRIMARY KEY,
        merchant_id UUID NOT NULL REFERENCES merchants(id),
        withdrawal_id UUID NOT NULL UNIQUE REFERENCES withdrawals(id),
        trigger TEXT NOT NULL CHECK (trigger IN ('ON_DEMAND','SCHEDULED')),
        requested_by UUID,
        -- SCHEDULED only: the schedule's workflow run that made it and the frequency it ran under.
        schedule_run_id TEXT,
        schedule_frequency TEXT CHECK (schedule_frequency IN ('D0','D1','WEEKLY')),
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        CONSTRAINT settlements_scheduled_has_run CHECK ((trigger = 'SCHEDULED') = (schedule_run_id IS NOT NULL))
      );
      -- A retried scheduled run never makes a second settlement.
      CREATE UNIQUE INDEX settlements_schedule_run_once ON settlements (schedule_run_id) WHERE schedule_run_id IS NOT NULL;
      CREATE INDEX settlements_merchant_created ON settlements (merchant_id, created_at DESC, id DESC);
      CREATE TABLE settlement_schedules (
        merchant_id UUID PRIMARY KEY REFERENCES merchants(id),
        frequency TEXT NOT NULL CHECK (frequency IN ('D0','D1','WEEKLY')),
        minimum_amount_cents BIGINT NOT NULL CHECK (minimum_amount_cents >= 0),
        updated_by UUID,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
    `);
  },
};

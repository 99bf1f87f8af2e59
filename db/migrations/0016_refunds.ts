/**
 * Refunds of paid charges. A refund is PROCESSING from its reservation (the shares of the owner
 * and split merchants moved to reserved in the same DB transaction) until the provider's answer
 * makes it SUCCEEDED (money out) or FAILED (shares released). `shares` records who gives back
 * what (core/refunds/shares.ts), so completion and release move exactly what was reserved.
 */
import type { Migration } from '../migrator';

export const refunds: Migration = {
  name: '0016_refunds',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE TABLE refunds (
        id UUID PRIMARY KEY,
        charge_id UUID NOT NULL REFERENCES charges(id),
        merchant_id UUID NOT NULL REFERENCES merchants(id),
        amount_cents BIGINT NOT NULL CHECK (amount_cents > 0),
        reason TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('PROCESSING', 'SUCCEEDED', 'FAILED')),
        shares JSONB NOT NULL,
        idempotency_key TEXT,
        requested_by UUID,
        provider_transfer_id TEXT,
        end_to_end_id TEXT,
        failure_code TEXT,
        failure_reason TEXT,
        settled_at TIMESTAMPTZ,
        released_at TIMESTAMPTZ,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX refunds_charge ON refunds (charge_id, created_at);
    `);
  },
};

/**
 * Boleto batches (POST /boletos with several items). The API stores the batch and one row per
 * item in one transaction; the BoletoBatch workflow issues each item as a BOLETO charge and
 * records the outcome on its row: ISSUED with the charge id, FAILED with our code and words,
 * or CANCELLED. The item keeps what was asked for, so a row can be read without its charge.
 */
import type { Migration } from '../migrator';

export const boletoBatches: Migration = {
  name: '0017_boleto_batches',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE TABLE boleto_batches (
        id UUID PRIMARY KEY,
        merchant_id UUID NOT NULL REFERENCES merchants(id),
        idempotency_key TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('PROCESSING', 'COMPLETED', 'COMPLETED_WITH_FAILURES')),
        items_count INTEGER NOT NULL CHECK (items_count > 0),
        issued_count INTEGER NOT NULL DEFAULT 0,
        failed_count INTEGER NOT NULL DEFAULT 0,
        cancelled_count INTEGER NOT NULL DEFAULT 0,
        fine_bps INTEGER NOT NULL DEFAULT 0,
        interest_monthly_bps INTEGER NOT NULL DEFAULT 0,
        grace_days INTEGER NOT NULL DEFAULT 0,
        completed_at TIMESTAMPTZ,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX boleto_batches_merchant ON boleto_batches (merchant_id, created_at);
      CREATE TABLE boleto_batch_items (
        id UUID PRIMARY KEY,
        batch_id UUID NOT NULL REFERENCES boleto_batches(id),
        row_index INTEGER NOT NULL,
        charge_id UUID REFERENCES charges(id),
        status TEXT NOT NULL CHECK (status IN ('PENDING', 'ISSUED', 'FAILED', 'CANCELLED')),
        amount_cents BIGINT NOT NULL CHECK (amount_cents > 0),
        fee_cents BIGINT NOT NULL CHECK (fee_cents >= 0),
        due_date DATE NOT NULL,
        payer_name TEXT NOT NULL,
        payer_tax_id TEXT NOT NULL,
        payer_email TEXT,
        description TEXT,
        external_ref TEXT,
        attempts INTEGER NOT NULL DEFAULT 0,
        error_code TEXT,
        error_message TEXT,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        UNIQUE (batch_id, row_index)
      );
      CREATE INDEX boleto_batch_items_charge ON boleto_batch_items (charge_id) WHERE charge_id IS NOT NULL;
    `);
  },
};

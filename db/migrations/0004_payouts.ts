/**
 * Payout batches and their items. Item status only moves forward:
 *   PENDING → SENDING → PAID | FAILED,  PENDING → CANCELLED.
 * SENDING is written before the provider call, so after a crash we know the transfer may exist
 * and ask the provider (same idempotency key) instead of releasing the money.
 */
import type { Migration } from '../migrator';

export const payouts: Migration = {
  name: '0004_payouts',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE TABLE payout_batches (
        id UUID PRIMARY KEY,
        merchant_id UUID NOT NULL REFERENCES merchants(id),
        idempotency_key TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('CREATED','PROCESSING','COMPLETED','COMPLETED_WITH_FAILURES','FAILED','CANCELLED')),
        description TEXT,
        metadata JSONB,
        items_count INTEGER NOT NULL CHECK (items_count > 0),
        total_amount_cents BIGINT NOT NULL CHECK (total_amount_cents > 0),
        total_fee_cents BIGINT NOT NULL CHECK (total_fee_cents >= 0),
        cancel_reason TEXT,
        released_amount_cents BIGINT NOT NULL DEFAULT 0,
        completed_at TIMESTAMPTZ,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        UNIQUE (merchant_id, idempotency_key)
      );
      CREATE INDEX payout_batches_merchant_created ON payout_batches (merchant_id, created_at DESC);

      CREATE TABLE payout_items (
        id UUID PRIMARY KEY,
        batch_id UUID NOT NULL REFERENCES payout_batches(id) ON DELETE CASCADE,
        merchant_id UUID NOT NULL REFERENCES merchants(id),
        row_index INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('PENDING','SENDING','PAID','FAILED','CANCELLED')),
        amount_cents BIGINT NOT NULL CHECK (amount_cents > 0),
        fee_cents BIGINT NOT NULL CHECK (fee_cents >= 0),
        pix_key TEXT NOT NULL,
        pix_key_type TEXT NOT NULL,
        recipient_name TEXT NOT NULL,
        recipient_document TEXT,
        reference_id TEXT,
        provider_transfer_id TEXT,
        end_to_end_id TEXT,
        last_error TEXT,
        last_error_code TEXT,
        attempts INTEGER NOT NULL DEFAULT 0,
        settled_at TIMESTAMPTZ,
        released_at TIMESTAMPTZ,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        UNIQUE (batch_id, row_index)
      );
      CREATE INDEX payout_items_batch_status ON payout_items (batch_id, status);
    `);
  },
};

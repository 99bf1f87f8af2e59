/**
 * Withdrawals (saques): the merchant's own payout destination, a per-merchant withdrawal fee,
 * and the withdrawals table. Money rules are enforced here too: total = amount + fee, statuses
 * are a closed list, a finished withdrawal has its processing time, a completed one its
 * provider tracking ids, and provider ids are unique so one transfer cannot settle two rows.
 */
import type { Migration } from '../migrator';

export const withdrawals: Migration = {
  name: '0003_withdrawals',
  async up({ context: sequelize }) {
    await sequelize.query(`
      ALTER TABLE merchants
        ADD COLUMN pix_key TEXT,
        ADD COLUMN pix_key_type TEXT CHECK (pix_key_type IN ('CPF','CNPJ','EMAIL','PHONE','EVP')),
        ADD COLUMN pix_key_holder_name TEXT,
        ADD COLUMN pix_key_holder_document TEXT CHECK (pix_key_holder_document ~ '^([0-9]{11}|[0-9]{14})$'),
        ADD COLUMN withdrawal_fee_cents INTEGER NOT NULL DEFAULT 0 CHECK (withdrawal_fee_cents >= 0),
        ADD CONSTRAINT merchants_pix_key_with_type CHECK ((pix_key IS NULL) = (pix_key_type IS NULL));

      CREATE TABLE withdrawals (
        id UUID PRIMARY KEY,
        merchant_id UUID NOT NULL REFERENCES merchants(id),
        -- The signed-in user who asked, when one did; server-to-server (client credential) calls have none.
        user_id UUID,
        amount_cents BIGINT NOT NULL CHECK (amount_cents > 0),
        fee_cents BIGINT NOT NULL CHECK (fee_cents >= 0),
        total_debited_cents BIGINT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('PROCESSING','COMPLETED','FAILED','CANCELLED')),
        description TEXT,
        idempotency_key TEXT,
        -- Our reference for the transfer at the provider (its idempotency key).
        partner_tx_id TEXT,
        provider_transfer_id TEXT UNIQUE,
        provider_end_to_end_id TEXT UNIQUE,
        failure_code TEXT,
        failure_reason TEXT,
        beneficiary_snapshot JSONB,
        source_account_snapshot JSONB,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        processed_at TIMESTAMPTZ,
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        CONSTRAINT withdrawals_total_is_amount_plus_fee CHECK (total_debited_cents = amount_cents + fee_cents),
        CONSTRAINT withdrawals_finished_when_processed CHECK ((status = 'PROCESSING') = (processed_at IS NULL)),
        CONSTRAINT withdrawals_completed_is_tracked CHECK (status <> 'COMPLETED' OR provider_transfer_id IS NOT NULL)
      );
      -- Listing is per merchant, newest first (id breaks ties so pages never overlap).
      CREATE INDEX withdrawals_merchant_created ON withdrawals (merchant_id, created_at DESC, id DESC);
    `);
  },
};

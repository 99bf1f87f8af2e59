/**
 * Initial schema. Money rules live in the database too, so no code path can break them:
 * - amounts are BIGINT cents; postings are non-zero;
 * - every ledger transaction balances (deferred constraint trigger checks at commit);
 * - a non-external account can never go below zero (CHECK on the maintained balance);
 * - each money movement has a unique key, so it happens once.
 */
import type { Migration } from '../migrator';

export const initialSchema: Migration = {
  name: '0001_initial',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE TABLE merchants (
        id UUID PRIMARY KEY,
        name TEXT NOT NULL,
        email TEXT,
        document TEXT,
        document_type TEXT CHECK (document_type IN ('CPF','CNPJ')),
        type TEXT NOT NULL DEFAULT 'PRODUCER' CHECK (type IN ('PRODUCER','RIFEIRO')),
        active BOOLEAN NOT NULL DEFAULT TRUE,
        payouts_enabled BOOLEAN NOT NULL DEFAULT FALSE,
        withdrawals_frozen BOOLEAN NOT NULL DEFAULT FALSE,
        pix_fee_bps INTEGER CHECK (pix_fee_bps BETWEEN 0 AND 10000),
        pix_fee_fixed_cents INTEGER CHECK (pix_fee_fixed_cents >= 0),
        payout_fee_cents INTEGER NOT NULL DEFAULT 0 CHECK (payout_fee_cents >= 0),
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );

      CREATE TABLE api_credentials (
        id UUID PRIMARY KEY,
        merchant_id UUID REFERENCES merchants(id),
        client_id TEXT NOT NULL UNIQUE,
        -- AES-256-GCM ciphertext of the client secret (request signatures need the secret itself).
        secret_ciphertext TEXT NOT NULL,
        scopes TEXT[] NOT NULL DEFAULT '{}',
        active BOOLEAN NOT NULL DEFAULT TRUE,
        last_used_at TIMESTAMPTZ,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );

      CREATE TABLE charges (
        id UUID PRIMARY KEY,
        merchant_id UUID NOT NULL REFERENCES merchants(id),
        amount_cents BIGINT NOT NULL CHECK (amount_cents > 0),
        fee_cents BIGINT NOT NULL DEFAULT 0 CHECK (fee_cents >= 0),
        currency TEXT NOT NULL DEFAULT 'BRL',
        method TEXT NOT NULL DEFAULT 'PIX',
        status TEXT NOT NULL CHECK (status IN ('PENDING','PAID','EXPIRED','CANCELLED')),
        description TEXT,
        external_ref TEXT,
        metadata JSONB,
        pix JSONB,
        payer_snapshot JSONB,
        provider_charge_id TEXT UNIQUE,
        pix_txid TEXT UNIQUE,
        end_to_end_id TEXT UNIQUE,
        idempotency_key TEXT,
        expires_at TIMESTAMPTZ NOT NULL,
        paid_at TIMESTAMPTZ,
        expired_at TIMESTAMPTZ,
        cancelled_at TIMESTAMPTZ,
        paid_after_expiry BOOLEAN NOT NULL DEFAULT FALSE,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX charges_merchant_created ON charges (merchant_id, created_at DESC);
      CREATE INDEX charges_merchant_external_ref ON charges (merchant_id, external_ref);

      CREATE TABLE charge_splits (
        id UUID PRIMARY KEY,
        charge_id UUID NOT NULL REFERENCES charges(id),
        merchant_id UUID NOT NULL REFERENCES merchants(id),
        amount_cents BIGINT NOT NULL CHECK (amount_cents > 0),
        percentage NUMERIC(5,2),
        position INTEGER NOT NULL,
        UNIQUE (charge_id, position)
      );

      CREATE TABLE ledger_accounts (
        id BIGSERIAL PRIMARY KEY,
        code TEXT NOT NULL UNIQUE,
        merchant_id UUID REFERENCES merchants(id),
        kind TEXT NOT NULL,
        -- External accounts mirror money outside the platform (payers, provider clearing) and may be negative.
        allow_negative BOOLEAN NOT NULL DEFAULT FALSE,
        balance_cents BIGINT NOT NULL DEFAULT 0,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        CONSTRAINT ledger_balance_not_negative CHECK (allow_negative OR balance_cents >= 0)
      );

      CREATE TABLE ledger_transactions (
        id UUID PRIMARY KEY,
        movement_key TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL,
        reference_type TEXT NOT NULL,
        reference_id TEXT NOT NULL,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );

      CREATE TABLE ledger_postings (
        id BIGSERIAL PRIMARY KEY,
        transaction_id UUID NOT NULL REFERENCES ledger_transactions(id),
        account_id BIGINT NOT NULL REFERENCES ledger_accounts(id),
        amount_cents BIGINT NOT NULL CHECK (amount_cents <> 0),
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX ledger_postings_tx ON ledger_postings (transaction_id);
      CREATE INDEX ledger_postings_account ON ledger_postings (account_id);

      CREATE FUNCTION ledger_assert_balanced() RETURNS trigger AS $$
      DECLARE total BIGINT;
      BEGIN
        SELECT COALESCE(SUM(amount_cents), 0) INTO total FROM ledger_postings WHERE transaction_id = NEW.transaction_id;
        IF total <> 0 THEN
          RAISE EXCEPTION 'ledger transaction % is unbalanced (sum %)', NEW.transaction_id, total;
        END IF;
        RETURN NULL;
      END $$ LANGUAGE plpgsql;

      CREATE CONSTRAINT TRIGGER ledger_postings_balanced
        AFTER INSERT OR UPDATE ON ledger_postings
        DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW EXECUTE FUNCTION ledger_assert_balanced();

      CREATE FUNCTION ledger_postings_immutable() RETURNS trigger AS $$
      BEGIN
        RAISE EXCEPTION 'ledger postings are append-only';
      END $$ LANGUAGE plpgsql;
      CREATE TRIGGER ledger_postings_no_change BEFORE UPDATE OR DELETE ON ledger_postings
        FOR EACH ROW EXECUTE FUNCTION ledger_postings_immutable();

      CREATE TABLE idempotency_records (
        merchant_id UUID NOT NULL REFERENCES merchants(id),
        scope TEXT NOT NULL,
        key TEXT NOT NULL,
        request_hash TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('IN_PROGRESS','COMPLETED')),
        resource_id TEXT NOT NULL,
        response_status INTEGER,
        response_body JSONB,
        locked_until TIMESTAMPTZ NOT NULL,
        expires_at TIMESTAMPTZ NOT NULL,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (merchant_id, scope, key)
      );
      CREATE INDEX idempotency_records_expiry ON idempotency_records (expires_at);

      CREATE TABLE outbox_events (
        id UUID PRIMARY KEY,
        dedup_key TEXT NOT NULL UNIQUE,
        merchant_id UUID NOT NULL REFERENCES merchants(id),
        type TEXT NOT NULL,
        aggregate_type TEXT NOT NULL,
        aggregate_id TEXT NOT NULL,
        payload JSONB NOT NULL,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        dispatched_at TIMESTAMPTZ
      );
      CREATE INDEX outbox_events_undispatched ON outbox_events (created_at) WHERE dispatched_at IS NULL;
      CREATE INDEX outbox_events_aggregate ON outbox_events (aggregate_type, aggregate_id);

      CREATE TABLE provider_events (
        id TEXT PRIMARY KEY,
        type TEXT NOT NULL,
        provider_charge_id TEXT,
        payload JSONB NOT NULL,
        outcome TEXT,
        received_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
    `);
  },
};

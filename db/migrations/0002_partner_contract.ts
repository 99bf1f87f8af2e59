/**
 * Webhook endpoints (merchant-wide, or scoped to one charge by `webhook_url`) and the replay
 * guard for request signatures.
 */
import type { Migration } from '../migrator';

export const partnerContract: Migration = {
  name: '0002_partner_contract',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE TABLE webhook_endpoints (
        id UUID PRIMARY KEY,
        merchant_id UUID NOT NULL REFERENCES merchants(id),
        charge_id UUID REFERENCES charges(id),
        url TEXT NOT NULL,
        events TEXT[] NOT NULL CHECK (cardinality(events) > 0),
        description TEXT,
        -- AES-256-GCM: deliveries are HMACs keyed with the secret, so it must be readable.
        secret_ciphertext TEXT NOT NULL,
        -- During a rotation the previous secret keeps signing (second v1 entry) until it expires.
        previous_secret_ciphertext TEXT,
        previous_secret_expires_at TIMESTAMPTZ,
        active BOOLEAN NOT NULL DEFAULT TRUE,
        disabled_at TIMESTAMPTZ,
        disabled_reason TEXT,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX webhook_endpoints_merchant ON webhook_endpoints (merchant_id, created_at DESC);
      CREATE UNIQUE INDEX webhook_endpoints_charge ON webhook_endpoints (charge_id) WHERE charge_id IS NOT NULL;

      CREATE TABLE request_signatures_seen (
        credential_id UUID NOT NULL,
        signature TEXT NOT NULL,
        expires_at TIMESTAMPTZ NOT NULL,
        PRIMARY KEY (credential_id, signature)
      );
      CREATE INDEX request_signatures_seen_expiry ON request_signatures_seen (expires_at);
    `);
  },
};

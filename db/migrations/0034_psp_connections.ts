/**
 * A merchant's own PSP connection (the connected account model, issue 37): the PSP's URLs, the
 * client id and Pix key in clear, and every secret (client secret, certificate key or PKCS#12 and
 * passphrase, the webhook's path secret) in envelopes (core/crypto/envelope.ts) under the master
 * key their `*_key_id` names. A rotation first stores the new material as pending, tests it, then
 * promotes it in one UPDATE, so the active material never changes before its successor works.
 */
import type { Migration } from '../migrator';

export const pspConnections: Migration = {
  name: '0034_psp_connections',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE TABLE psp_connections (
        id UUID PRIMARY KEY,
        merchant_id UUID NOT NULL REFERENCES merchants(id),
        -- efi: API Pix v2 for collections, and Efí's send, balance and MED routes on the same host and certificate.
        psp_kind TEXT NOT NULL CHECK (psp_kind IN ('efi')),
        api_base_url TEXT NOT NULL,
        token_url TEXT NOT NULL,
        client_id TEXT NOT NULL,
        pix_key TEXT NOT NULL,
        secret_envelope TEXT NOT NULL,
        secret_key_id TEXT NOT NULL,
        -- SHA-256 of the client certificate, shown without opening the envelope (null: not readable from a PKCS#12).
        certificate_fingerprint TEXT,
        webhook_path_secret_envelope TEXT NOT NULL,
        webhook_path_secret_key_id TEXT NOT NULL,
        pending_secret_envelope TEXT,
        pending_secret_key_id TEXT,
        pending_certificate_fingerprint TEXT,
        pending_since TIMESTAMPTZ,
        status TEXT NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE','REVOKED')),
        -- {at, ok, token, webhook, balance, problems}: our own words, never a secret nor the PSP's text.
        last_test JSONB,
        revoked_at TIMESTAMPTZ,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        CHECK ((pending_secret_envelope IS NULL) = (pending_secret_key_id IS NULL)),
        CHECK ((status = 'REVOKED') = (revoked_at IS NOT NULL))
      );
      CREATE UNIQUE INDEX psp_connections_one_active ON psp_connections (merchant_id) WHERE status = 'ACTIVE';
    `);
  },
};

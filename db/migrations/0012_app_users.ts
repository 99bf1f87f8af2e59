/**
 * The application API's identity layer: people who sign in (users), what they may do for which
 * merchant (merchant_members), their sessions and rotating refresh tokens, login throttling, and
 * second factors (TOTP, e-mail codes, recovery codes, challenges). Secrets are stored hashed
 * (refresh tokens, codes) or encrypted (TOTP seeds); nothing here can be replayed from a dump.
 */
import type { Migration } from '../migrator';

export const appUsers: Migration = {
  name: '0012_app_users',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE TABLE users (
        id UUID PRIMARY KEY,
        email TEXT,
        password_hash TEXT,
        name TEXT NOT NULL,
        phone TEXT,
        document TEXT,
        document_type TEXT CHECK (document_type IN ('CPF', 'CNPJ')),
        kyc_status TEXT,
        avatar_key TEXT,
        avatar_url TEXT,
        deleted_at TIMESTAMPTZ,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      -- Emails are stored lower-cased; a deleted account frees its address (email set to NULL).
      CREATE UNIQUE INDEX users_email_unique ON users (email) WHERE email IS NOT NULL;

      CREATE TABLE merchant_members (
        user_id UUID NOT NULL REFERENCES users(id),
        merchant_id UUID NOT NULL REFERENCES merchants(id),
        role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'finance', 'viewer')),
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (user_id, merchant_id)
      );
      CREATE INDEX merchant_members_merchant ON merchant_members (merchant_id);

      -- One row per login: the refresh-token family. Revoking it ends every token of the family.
      CREATE TABLE user_sessions (
        id UUID PRIMARY KEY,
        user_id UUID NOT NULL REFERENCES users(id),
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        last_used_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        revoked_at TIMESTAMPTZ,
        revoked_reason TEXT
      );
      CREATE INDEX user_sessions_user ON user_sessions (user_id) WHERE revoked_at IS NULL;

      CREATE TABLE refresh_tokens (
        id UUID PRIMARY KEY,
        session_id UUID NOT NULL REFERENCES user_sessions(id),
        token_hash TEXT NOT NULL UNIQUE,
        expires_at TIMESTAMPTZ NOT NULL,
        used_at TIMESTAMPTZ,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX refresh_tokens_session ON refresh_tokens (session_id);

      -- Failed logins per account (by e-mail, whether or not it exists) and per IP.
      CREATE TABLE login_throttles (
        key TEXT PRIMARY KEY,
        failures INTEGER NOT NULL DEFAULT 0,
        locked_until TIMESTAMPTZ,
        last_failure_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );

      CREATE TABLE user_second_factors (
        user_id UUID PRIMARY KEY REFERENCES users(id),
        totp_secret_ciphertext TEXT,
        totp_enabled_at TIMESTAMPTZ,
        totp_pending_ciphertext TEXT,
        totp_last_step BIGINT,
        email_enabled_at TIMESTAMPTZ,
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );

      CREATE TABLE recovery_codes (
        id UUID PRIMARY KEY,
        user_id UUID NOT NULL REFERENCES users(id),
        code_hash TEXT NOT NULL,
        used_at TIMESTAMPTZ,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX recovery_codes_user ON recovery_codes (user_id) WHERE used_at IS NULL;

      -- A login second step, an e-mail setup or a sensitive action awaiting its code.
      CREATE TABLE auth_challenges (
        id UUID PRIMARY KEY,
        user_id UUID NOT NULL REFERENCES users(id),
        purpose TEXT NOT NULL CHECK (purpose IN ('LOGIN', 'EMAIL_SETUP', 'ACTION')),
        action TEXT,
        token_hash TEXT UNIQUE,
        email_code_hash TEXT,
        email_code_expires_at TIMESTAMPTZ,
        attempts INTEGER NOT NULL DEFAULT 0,
        expires_at TIMESTAMPTZ NOT NULL,
        completed_at TIMESTAMPTZ,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX auth_challenges_user ON auth_challenges (user_id);

      -- Short-lived proof that a user passed a second factor for one named action; used once.
      CREATE TABLE action_tokens (
        id UUID PRIMARY KEY,
        user_id UUID NOT NULL REFERENCES users(id),
        action TEXT NOT NULL,
        token_hash TEXT NOT NULL UNIQUE,
        expires_at TIMESTAMPTZ NOT NULL,
        used_at TIMESTAMPTZ,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
    `);
  },
};

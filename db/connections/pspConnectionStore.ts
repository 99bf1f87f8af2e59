/**
 * The psp_connections table (a merchant's own PSP connection, migration 0034): its one writer and
 * the way to read it. Envelopes are stored and returned as text; opening them is the caller's
 * (core/crypto/envelope.ts), so nothing here ever holds a secret in clear.
 */
import crypto from 'node:crypto';
import { QueryTypes, type Sequelize } from 'sequelize';
import { affectedRows } from '../affectedRows';
import type { ConnectionTestRecord } from '../../core/connections/testRecord';

export type { ConnectionTestRecord };

export type PspKind = 'efi';
export type PspConnectionStatus = 'ACTIVE' | 'REVOKED';

export interface PspConnectionRow {
  id: string;
  merchant_id: string;
  psp_kind: PspKind;
  api_base_url: string;
  token_url: string;
  client_id: string;
  pix_key: string;
  secret_envelope: string;
  secret_key_id: string;
  certificate_fingerprint: string | null;
  webhook_path_secret_envelope: string;
  webhook_path_secret_key_id: string;
  pending_secret_envelope: string | null;
  pending_secret_key_id: string | null;
  pending_certificate_fingerprint: string | null;
  pending_since: Date | null;
  status: PspConnectionStatus;
  /** The account's number at its PSP (Efí's `conta`), how Split Pix names it; null until given (migration 0035). */
  account_number: string | null;
  last_test: ConnectionTestRecord | null;
  revoked_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface NewPspConnection {
  merchantId: string;
  pspKind: PspKind;
  apiBaseUrl: string;
  tokenUrl: string;
  clientId: string;
  pixKey: string;
  accountNumber?: string | null;
  secret: { envelope: string; keyId: string };
  certificateFingerprint: string | null;
  webhookPathSecret: { envelope: string; keyId: string };
}

export class ActiveConnectionExists extends Error {}

export async function insertConnection(sequelize: Sequelize, c: NewPspConnection): Promise<PspConnectionRow> {
  try {
    const [row] = await sequelize.query<PspConnectionRow>(
      // The merchant's row lock first, as a withdrawal's reservation takes it: a reservation either
      // commits before the connection exists or sees it (activities/withdrawals/reserve.ts).
      `WITH merchant AS (SELECT id FROM merchants WHERE id = :merchantId FOR UPDATE)
       INSERT INTO psp_connections (id, merchant_id, psp_kind, api_base_url, token_url, client_id, pix_key, account_number,
         secret_envelope, secret_key_id, certificate_fingerprint, webhook_path_secret_envelope, webhook_path_secret_key_id)
       SELECT :id, merchant.id, :pspKind, :apiBaseUrl, :tokenUrl, :clientId, :pixKey, :accountNumber,
         :secretEnvelope, :secretKeyId, :fingerprint, :webhookEnvelope, :webhookKeyId FROM merchant
       RETURNING *`,
      {
        replacements: {
          id: crypto.randomUUID(),
          merchantId: c.merchantId,
          pspKind: c.pspKind,
          apiBaseUrl: c.apiBaseUrl,
          tokenUrl: c.tokenUrl,
          clientId: c.clientId,
          pixKey: c.pixKey,
          accountNumber: c.accountNumber ?? null,
          secretEnvelope: c.secret.envelope,
          secretKeyId: c.secret.keyId,
          fingerprint: c.certificateFingerprint,
          webhookEnvelope: c.webhookPathSecret.envelope,
          webhookKeyId: c.webhookPathSecret.keyId,
        },
        type: QueryTypes.SELECT,
      },
    );
    if (!row) throw new Error(`no merchant with id ${c.merchantId}`);
    return row;
  } catch (err) {
    if ((err as { parent?: { constraint?: string } }).parent?.constraint === 'psp_connections_one_active')
      throw new ActiveConnectionExists(`merchant ${c.merchantId} already has an active connection`);
    throw err;
  }
}

export async function findActiveConnection(sequelize: Sequelize, merchantId: string): Promise<PspConnectionRow | null> {
  const [row] = await sequelize.query<PspConnectionRow>(
    `SELECT * FROM psp_connections WHERE merchant_id = :merchantId AND status = 'ACTIVE'`,
    { replacements: { merchantId }, type: QueryTypes.SELECT },
  );
  return row ?? null;
}

/** One connection by id, active or revoked (what a charge issued on it is asked of). */
export async function findConnectionById(sequelize: Sequelize, id: string): Promise<PspConnectionRow | null> {
  const [row] = await sequelize.query<PspConnectionRow>(`SELECT * FROM psp_connections WHERE id = :id`, {
    replacements: { id },
    type: QueryTypes.SELECT,
  });
  return row ?? null;
}

/**
 * Every active connection, by id, merchant and when it was registered (no secret), oldest first:
 * the accounts the sweep for lost notifications, the daily reconciliation and MED's sync read
 * besides the platform's.
 */
export async function activeConnections(
  sequelize: Sequelize,
): Promise<{ id: string; merchantId: string; createdAt: Date }[]> {
  const rows = await sequelize.query<{ id: string; merchant_id: string; created_at: Date }>(
    `SELECT id, merchant_id, created_at FROM psp_connections WHERE status = 'ACTIVE' ORDER BY created_at, id`,
    { type: QueryTypes.SELECT },
  );
  return rows.map((r) => ({ id: r.id, merchantId: r.merchant_id, createdAt: new Date(r.created_at) }));
}

/**
 * The account model a merchant is in, from its connections: none, the platform's account; an
 * active one, its own (connected); only revoked ones, connected and stopped (never silently back
 * to the platform's account, which Resolution 518 is about).
 */
export type MerchantAccountModel =
  | { model: 'PLATFORM' }
  /** No connection, and the platform holds nobody's money (ACCOUNT_MODEL_DEFAULT=connected). */
  | { model: 'CONNECTION_REQUIRED' }
  | { model: 'CONNECTED'; connectionId: string }
  | { model: 'CONNECTED_REVOKED'; connectionId: string };

export async function merchantAccountModel(
  sequelize: Sequelize,
  merchantId: string,
  withoutConnection: 'platform' | 'connected' = 'platform',
): Promise<MerchantAccountModel> {
  const row = await findLatestConnection(sequelize, merchantId);
  if (!row) return withoutConnection === 'platform' ? { model: 'PLATFORM' } : { model: 'CONNECTION_REQUIRED' };
  return row.status === 'ACTIVE'
    ? { model: 'CONNECTED', connectionId: row.id }
    : { model: 'CONNECTED_REVOKED', connectionId: row.id };
}

/**
 * What another account's Split Pix needs of a merchant: its active connection's PSP, account
 * number and holder's document; and what a send to it from another PSP needs: the connection's
 * id and Pix key, and the holder's name.
 */
export interface SplitRecipientRow {
  merchant_id: string;
  connection_id: string;
  api_base_url: string;
  account_number: string | null;
  pix_key: string;
  name: string;
  document: string | null;
}

export async function splitRecipients(sequelize: Sequelize, merchantIds: string[]): Promise<SplitRecipientRow[]> {
  if (merchantIds.length === 0) return [];
  return sequelize.query<SplitRecipientRow>(
    `SELECT c.merchant_id, c.id AS connection_id, c.api_base_url, c.account_number, c.pix_key, m.name, m.document
       FROM psp_connections c JOIN merchants m ON m.id = c.merchant_id
      WHERE c.merchant_id IN (:merchantIds) AND c.status = 'ACTIVE'`,
    { replacements: { merchantIds }, type: QueryTypes.SELECT },
  );
}

/** The merchant's newest connection, active or revoked (what `connection show` reports). */
export async function findLatestConnection(sequelize: Sequelize, merchantId: string): Promise<PspConnectionRow | null> {
  const [row] = await sequelize.query<PspConnectionRow>(
    `SELECT * FROM psp_connections WHERE merchant_id = :merchantId
      ORDER BY (status = 'ACTIVE') DESC, created_at DESC, id LIMIT 1`,
    { replacements: { merchantId }, type: QueryTypes.SELECT },
  );
  return row ?? null;
}

export async function recordTest(sequelize: Sequelize, id: string, test: ConnectionTestRecord): Promise<void> {
  await sequelize.query(`UPDATE psp_connections SET last_test = :test::jsonb, updated_at = now() WHERE id = :id`, {
    replacements: { id, test: JSON.stringify(test) },
  });
}

/** Stores new material beside the active one; false when the connection is no longer active. */
export async function setPending(
  sequelize: Sequelize,
  id: string,
  pending: { envelope: string; keyId: string; certificateFingerprint: string | null },
): Promise<boolean> {
  const [, affected] = await sequelize.query(
    `UPDATE psp_connections SET pending_secret_envelope = :envelope, pending_secret_key_id = :keyId,
       pending_certificate_fingerprint = :fingerprint, pending_since = now(), updated_at = now()
     WHERE id = :id AND status = 'ACTIVE'`,
    {
      replacements: {
        id,
        envelope: pending.envelope,
        keyId: pending.keyId,
        fingerprint: pending.certificateFingerprint,
      },
      type: QueryTypes.UPDATE,
    },
  );
  return Number(affected) === 1;
}

/**
 * The pending material becomes the active one in one statement, only if it is still the one that
 * was tested (`envelope`) and the connection still active: a concurrent rotation or a revocation
 * wins over a promotion.
 */
export async function promotePending(
  sequelize: Sequelize,
  id: string,
  envelope: string,
  test: ConnectionTestRecord,
): Promise<boolean> {
  const [, affected] = await sequelize.query(
    `UPDATE psp_connections SET secret_envelope = pending_secret_envelope, secret_key_id = pending_secret_key_id,
       certificate_fingerprint = pending_certificate_fingerprint, pending_secret_envelope = NULL,
       pending_secret_key_id = NULL, pending_certificate_fingerprint = NULL, pending_since = NULL,
       last_test = :test::jsonb, updated_at = now()
     WHERE id = :id AND status = 'ACTIVE' AND pending_secret_envelope = :envelope`,
    { replacements: { id, envelope, test: JSON.stringify(test) }, type: QueryTypes.UPDATE },
  );
  return Number(affected) === 1;
}

/** Drops pending material that failed its test (only that one: a newer rotation's stays). */
export async function clearPending(sequelize: Sequelize, id: string, envelope: string): Promise<void> {
  await sequelize.query(
    `UPDATE psp_connections SET pending_secret_envelope = NULL, pending_secret_key_id = NULL,
       pending_certificate_fingerprint = NULL, pending_since = NULL, updated_at = now()
     WHERE id = :id AND pending_secret_envelope = :envelope`,
    { replacements: { id, envelope } },
  );
}

/** Revokes the merchant's active connection; null when it has none. */
export async function revokeConnection(sequelize: Sequelize, merchantId: string): Promise<PspConnectionRow | null> {
  const [row] = await sequelize.query<PspConnectionRow>(
    `UPDATE psp_connections SET status = 'REVOKED', revoked_at = now(), pending_secret_envelope = NULL,
       pending_secret_key_id = NULL, pending_certificate_fingerprint = NULL, pending_since = NULL, updated_at = now()
     WHERE merchant_id = :merchantId AND status = 'ACTIVE' RETURNING *`,
    { replacements: { merchantId }, type: QueryTypes.SELECT },
  );
  return row ?? null;
}

/** The envelopes of a connection, as a master key rotation re-wraps them. */
export interface ConnectionEnvelopes {
  id: string;
  secret_envelope: string;
  webhook_path_secret_envelope: string;
  pending_secret_envelope: string | null;
}

/** Every connection (active or revoked) with an envelope not sealed under `currentKeyId`. */
export async function connectionsNotUnder(sequelize: Sequelize, currentKeyId: string): Promise<ConnectionEnvelopes[]> {
  return sequelize.query<ConnectionEnvelopes>(
    `SELECT id, secret_envelope, webhook_path_secret_envelope, pending_secret_envelope FROM psp_connections
      WHERE secret_key_id <> :currentKeyId OR webhook_path_secret_key_id <> :currentKeyId
         OR (pending_secret_key_id IS NOT NULL AND pending_secret_key_id <> :currentKeyId)
      ORDER BY created_at, id`,
    { replacements: { currentKeyId }, type: QueryTypes.SELECT },
  );
}

/**
 * Replaces a connection's envelopes by the same secrets re-wrapped under `keyId`, only if they are
 * still the ones read (a rotation or a revocation meanwhile wins: false, and the next run sees it).
 * The secrets do not change, so `updated_at` stays: nothing that caches a connection needs to rebuild.
 */
export async function replaceEnvelopes(
  sequelize: Sequelize,
  read: ConnectionEnvelopes,
  next: Omit<ConnectionEnvelopes, 'id'>,
  keyId: string,
): Promise<boolean> {
  const [, affected] = await sequelize.query(
    `UPDATE psp_connections
        SET secret_envelope = :secret, secret_key_id = :keyId,
            webhook_path_secret_envelope = :webhook, webhook_path_secret_key_id = :keyId,
            pending_secret_envelope = :pending,
            pending_secret_key_id = CASE WHEN :pending::text IS NULL THEN NULL ELSE :keyId END
      WHERE id = :id AND secret_envelope = :oldSecret AND webhook_path_secret_envelope = :oldWebhook
        AND pending_secret_envelope IS NOT DISTINCT FROM :oldPending::text`,
    {
      replacements: {
        id: read.id,
        keyId,
        secret: next.secret_envelope,
        webhook: next.webhook_path_secret_envelope,
        pending: next.pending_secret_envelope,
        oldSecret: read.secret_envelope,
        oldWebhook: read.webhook_path_secret_envelope,
        oldPending: read.pending_secret_envelope,
      },
    },
  );
  return affectedRows(affected) === 1;
}

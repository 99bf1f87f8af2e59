/**
 * Registering a merchant's PSP connection and presenting it, the one way the CLI
 * (cli/connection.ts) and the application API (api/connections/) both do it: the material proven
 * usable by the caller (core/connections/material.ts checkedMaterial) is sealed in an envelope
 * under the operator's master key, a fresh secret for the connection's own notification path is
 * sealed beside it, and the row is inserted (ActiveConnectionExists when the merchant has an
 * active one). What is shown of a row never holds a secret nor an envelope.
 */
import crypto from 'node:crypto';
import type { Sequelize } from 'sequelize';
import { certificateFingerprint, serializeMaterial, type ConnectionMaterial } from '../../core/connections/material';
import { sealEnvelope, type MasterKeyring } from '../../core/crypto/envelope';
import { insertConnection, type PspConnectionRow, type PspKind } from './pspConnectionStore';

/** A connection's plain fields, already checked (core/connections/fields.ts). */
export interface ConnectionFields {
  merchantId: string;
  pspKind: PspKind;
  apiBaseUrl: string;
  tokenUrl: string;
  clientId: string;
  pixKey: string;
  accountNumber: string | null;
}

/** The material sealed for storage, with the fingerprint of its certificate (what `show` prints). */
export function sealMaterial(material: ConnectionMaterial, keyring: MasterKeyring) {
  const sealed = sealEnvelope(serializeMaterial(material), keyring);
  return {
    envelope: sealed.envelope,
    keyId: sealed.masterKeyId,
    certificateFingerprint: certificateFingerprint(material.identity),
  };
}

/** Seals and inserts; throws ActiveConnectionExists when the merchant already has an active connection. */
export async function registerConnection(
  sequelize: Sequelize,
  keyring: MasterKeyring,
  fields: ConnectionFields,
  material: ConnectionMaterial,
): Promise<PspConnectionRow> {
  const secret = sealMaterial(material, keyring);
  const pathSecret = sealEnvelope(crypto.randomBytes(24).toString('base64url'), keyring);
  return insertConnection(sequelize, {
    ...fields,
    secret: { envelope: secret.envelope, keyId: secret.keyId },
    certificateFingerprint: secret.certificateFingerprint,
    webhookPathSecret: { envelope: pathSecret.envelope, keyId: pathSecret.masterKeyId },
  });
}

/** What `connection show --json` prints and GET /dashboard/connection answers: never a secret, never an envelope. */
export function presentConnection(r: PspConnectionRow) {
  return {
    id: r.id,
    merchantId: r.merchant_id,
    pspKind: r.psp_kind,
    status: r.status,
    apiBaseUrl: r.api_base_url,
    tokenUrl: r.token_url,
    clientId: r.client_id,
    pixKey: r.pix_key,
    accountNumber: r.account_number,
    certificateFingerprint: r.certificate_fingerprint,
    masterKeyId: r.secret_key_id,
    rotationPending: r.pending_secret_envelope !== null,
    lastTest: r.last_test,
    createdAt: new Date(r.created_at).toISOString(),
    revokedAt: r.revoked_at ? new Date(r.revoked_at).toISOString() : null,
  };
}

export type ConnectionView = ReturnType<typeof presentConnection>;

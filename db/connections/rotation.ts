/**
 * A connection's secrets rotated without downtime, the one way the CLI (cli/connection.ts) and the
 * application API (api/connections/) both do it. First the new material is staged here: what the
 * change gives, with the rest of the active material kept, sealed and stored as pending beside the
 * active one, which goes on serving every call. Then the pending material is tested against the
 * PSP and promoted only if the test passes, else dropped (activities/connections/rotation.ts: in
 * the CLI's own process, or in the worker for the API, which calls no PSP).
 */
import crypto from 'node:crypto';
import type { Sequelize } from 'sequelize';
import {
  changedMaterial,
  parseMaterial,
  wholeMaterial,
  type ConnectionMaterial,
  type MaterialChange,
} from '../../core/connections/material';
import { openEnvelope, type MasterKeyring } from '../../core/crypto/envelope';
import { setPending, type PspConnectionRow } from './pspConnectionStore';
import { sealMaterial } from './registration';

/** The connection was revoked (or is gone) since it was read: nothing was staged. */
export class ConnectionNotActive extends Error {}

export interface StagedRotation {
  /** The pending material in clear, for a caller that tests it in its own process (the CLI). */
  material: ConnectionMaterial;
  /** Its sealed envelope, as stored: promotion happens only while it is still the pending one. */
  envelope: string;
  /** What names it across the workflow boundary without carrying it (pendingRef). */
  ref: string;
  keyId: string;
  certificateFingerprint: string | null;
}

/**
 * Seals the new material and stores it as pending (a rotation staged before, never promoted, is
 * replaced). The active material is opened only when the change gives part of it: to carry the
 * rest into the new envelope.
 */
export async function stageRotation(
  sequelize: Sequelize,
  keyring: MasterKeyring,
  row: PspConnectionRow,
  change: MaterialChange,
): Promise<StagedRotation> {
  const material =
    wholeMaterial(change) ?? changedMaterial(parseMaterial(openEnvelope(row.secret_envelope, keyring)), change);
  const sealed = sealMaterial(material, keyring);
  if (!(await setPending(sequelize, row.id, sealed)))
    throw new ConnectionNotActive(`PSP connection ${row.id} is not active: nothing was rotated`);
  return { material, ...sealed, ref: pendingRef(sealed.envelope) };
}

/** A digest of a pending envelope: which staged material a worker is asked to test (never the envelope itself). */
export function pendingRef(envelope: string): string {
  return crypto.createHash('sha256').update(envelope, 'utf8').digest('hex');
}

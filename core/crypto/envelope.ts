/**
 * Envelope encryption for secrets kept per row (a merchant's PSP connection): each envelope has a
 * fresh 32-byte data key that encrypts the plaintext, and the data key is wrapped by a master key
 * the operator configures. Both layers are secretBox.ts's AES-256-GCM boxes (`v1.<iv>.<tag>.<ct>`).
 *
 * Format: `env1:<master key id>:<wrapped data key box>:<ciphertext box>`. The master key's id
 * travels in the envelope, so a keyring that holds a later key (another id) beside the old one
 * opens every row, old and new, and rows move to the new key one by one (re-wrapping the data key
 * only), never all at once.
 */
import crypto from 'node:crypto';
import { decryptSecret, encryptSecret, parseKey } from './secretBox';

const VERSION = 'env1';
const KEY_ID = /^[a-z0-9]{1,16}$/;

/** The master keys by id, and the one new envelopes are sealed with. */
export interface MasterKeyring {
  currentKeyId: string;
  keys: ReadonlyMap<string, Buffer>;
}

export class EnvelopeError extends Error {}

export function masterKeyring(keys: Record<string, Buffer>, currentKeyId: string): MasterKeyring {
  for (const [id, key] of Object.entries(keys)) {
    if (!KEY_ID.test(id)) throw new EnvelopeError(`master key id ${JSON.stringify(id)} must be 1 to 16 of a-z, 0-9`);
    if (key.length !== 32) throw new EnvelopeError(`master key ${id} must be 32 bytes`);
  }
  if (!Object.hasOwn(keys, currentKeyId)) throw new EnvelopeError(`no master key with id ${currentKeyId}`);
  return { currentKeyId, keys: new Map(Object.entries(keys)) };
}

export interface SealedEnvelope {
  envelope: string;
  masterKeyId: string;
}

export function sealEnvelope(plaintext: string, keyring: MasterKeyring): SealedEnvelope {
  const masterKeyId = keyring.currentKeyId;
  const dataKey = crypto.randomBytes(32);
  try {
    const wrapped = encryptSecret(dataKey.toString('base64'), masterKey(keyring, masterKeyId));
    const ciphertext = encryptSecret(plaintext, dataKey);
    return { envelope: [VERSION, masterKeyId, wrapped, ciphertext].join(':'), masterKeyId };
  } finally {
    dataKey.fill(0);
  }
}

/** The master key id an envelope was sealed with (no key needed). */
export function envelopeKeyId(envelope: string): string {
  return parts(envelope).masterKeyId;
}

/** The plaintext; an EnvelopeError, never the GCM's own, when the key is wrong or the text altered. */
export function openEnvelope(envelope: string, keyring: MasterKeyring): string {
  const { masterKeyId, wrapped, ciphertext } = parts(envelope);
  const master = masterKey(keyring, masterKeyId);
  let dataKey: Buffer;
  try {
    dataKey = Buffer.from(decryptSecret(wrapped, master), 'base64');
  } catch {
    throw new EnvelopeError(`the envelope cannot be opened with master key ${masterKeyId} (another key, or altered)`);
  }
  try {
    if (dataKey.length !== 32) throw new Error('data key length');
    return decryptSecret(ciphertext, dataKey);
  } catch {
    throw new EnvelopeError('the envelope cannot be opened: its ciphertext was altered');
  } finally {
    dataKey.fill(0);
  }
}

function parts(envelope: string): { masterKeyId: string; wrapped: string; ciphertext: string } {
  const [version, masterKeyId, wrapped, ciphertext, ...extra] = envelope.split(':');
  if (version !== VERSION || !masterKeyId || !KEY_ID.test(masterKeyId) || !wrapped || !ciphertext || extra.length)
    throw new EnvelopeError('not an envelope of this gateway (env1:<key id>:<data key>:<ciphertext>)');
  return { masterKeyId, wrapped, ciphertext };
}

function masterKey(keyring: MasterKeyring, id: string): Buffer {
  const key = keyring.keys.get(id);
  if (!key) throw new EnvelopeError(`the envelope was sealed with master key ${id}, which is not configured`);
  return key;
}

/** The id CREDENTIALS_ENCRYPTION_KEY has as a master key: a later key gets another id beside it. */
export const CREDENTIALS_KEY_ID = 'k1';

/** The keyring of today's deployments: CREDENTIALS_ENCRYPTION_KEY (64 hex or base64) as `k1`. */
export function credentialsKeyring(credentialsEncryptionKey: string): MasterKeyring {
  return masterKeyring({ [CREDENTIALS_KEY_ID]: parseKey(credentialsEncryptionKey) }, CREDENTIALS_KEY_ID);
}

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

/**
 * Master keys after the first (CONNECTION_MASTER_KEYS, `id=key,…`), and the one new envelopes are
 * sealed with (CONNECTION_MASTER_KEY_ID). A rotation adds a key and makes it current; every
 * envelope still opens with the key its id names, and `connection rewrap` moves them one by one.
 */
export interface MasterKeyRotation {
  keys: Record<string, string>;
  currentKeyId: string;
}

/**
 * The connections' keyring: CREDENTIALS_ENCRYPTION_KEY (64 hex or base64) as `k1`, and the
 * rotation's keys beside it; without a rotation, `k1` is current.
 */
export function credentialsKeyring(
  credentialsEncryptionKey: string,
  rotation?: MasterKeyRotation | null,
): MasterKeyring {
  const keys: Record<string, Buffer> = { [CREDENTIALS_KEY_ID]: parseKey(credentialsEncryptionKey) };
  for (const [id, key] of Object.entries(rotation?.keys ?? {})) {
    if (id === CREDENTIALS_KEY_ID) throw new EnvelopeError(`master key id ${id} is CREDENTIALS_ENCRYPTION_KEY's`);
    keys[id] = parseKey(key);
  }
  return masterKeyring(keys, rotation?.currentKeyId ?? CREDENTIALS_KEY_ID);
}

/** `id=key,…` as keys by id; an EnvelopeError naming the entry by position or id, never by value. */
export function parseMasterKeys(text: string): Record<string, string> {
  const keys: Record<string, string> = {};
  text.split(',').forEach((entry, n) => {
    const at = entry.indexOf('=');
    const id = entry.slice(0, at).trim();
    const key = entry.slice(at + 1).trim();
    if (at < 1 || !KEY_ID.test(id) || !key)
      throw new EnvelopeError(`entry ${n + 1} is not <id>=<key> (id: 1 to 16 of a-z, 0-9)`);
    if (Object.hasOwn(keys, id)) throw new EnvelopeError(`master key id ${id} is given twice`);
    keys[id] = key;
  });
  return keys;
}

/**
 * The same secret under the keyring's current master key: only the data key is unwrapped and
 * wrapped again, the ciphertext stays as it is. An envelope already under the current key is
 * answered unchanged.
 */
export function rewrapEnvelope(envelope: string, keyring: MasterKeyring): SealedEnvelope {
  const { masterKeyId, wrapped, ciphertext } = parts(envelope);
  if (masterKeyId === keyring.currentKeyId) return { envelope, masterKeyId };
  let dataKey: Buffer;
  try {
    dataKey = Buffer.from(decryptSecret(wrapped, masterKey(keyring, masterKeyId)), 'base64');
  } catch (err) {
    if (err instanceof EnvelopeError) throw err;
    throw new EnvelopeError(`the envelope cannot be opened with master key ${masterKeyId} (another key, or altered)`);
  }
  try {
    const rewrapped = encryptSecret(dataKey.toString('base64'), masterKey(keyring, keyring.currentKeyId));
    return {
      envelope: [VERSION, keyring.currentKeyId, rewrapped, ciphertext].join(':'),
      masterKeyId: keyring.currentKeyId,
    };
  } finally {
    dataKey.fill(0);
  }
}

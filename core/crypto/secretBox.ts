/**
 * AES-256-GCM for secrets we must be able to read back (client secrets: request signatures are
 * HMACs keyed with them). Format: v1.<iv b64url>.<tag b64url>.<ciphertext b64url>.
 */
import crypto from 'node:crypto';

export function parseKey(key: string): Buffer {
  const buf = /^[0-9a-fA-F]{64}$/.test(key) ? Buffer.from(key, 'hex') : Buffer.from(key, 'base64');
  if (buf.length !== 32) throw new Error('encryption key must be 32 bytes (64 hex chars or base64)');
  return buf;
}

export function encryptSecret(plain: string, key: Buffer): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', key, iv);
  const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join(
    '.',
  );
}

export function decryptSecret(box: string, key: Buffer): string {
  const [version, iv, tag, ct] = box.split('.');
  if (version !== 'v1' || !iv || !tag || ct === undefined) throw new Error('unrecognised secret format');
  const decipher = crypto.createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
}

/** Constant-time string comparison that does not leak length through early exit. */
export function safeEqual(a: string, b: string): boolean {
  const ha = crypto.createHash('sha256').update(a).digest();
  const hb = crypto.createHash('sha256').update(b).digest();
  return crypto.timingSafeEqual(ha, hb) && a.length === b.length;
}

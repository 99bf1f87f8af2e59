/** Opaque bearer secrets (refresh, challenge, action tokens): random, and stored only as SHA-256. */
import crypto from 'node:crypto';

export function newOpaqueToken(prefix: string): string {
  return `${prefix}_${crypto.randomBytes(32).toString('base64url')}`;
}

export function sha256(value: string): string {
  return crypto.createHash('sha256').update(value).digest('hex');
}

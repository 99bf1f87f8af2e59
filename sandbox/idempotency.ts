/**
 * Idempotency-Key handling shared by charges and transfers: same key + same body replays the
 * original resource, same key + different body is a 409, like real PSPs (and Stripe) do.
 */
import { createHash } from 'node:crypto';
import type { Request } from 'express';
import { SandboxHttpError } from './errors';
import type { IdempotencyEntry } from './state';

export function requireIdempotencyKey(req: Request): string {
  const key = req.get('Idempotency-Key');
  if (!key || key.length > 255) {
    throw new SandboxHttpError(400, 'IDEMPOTENCY_KEY_REQUIRED', 'Idempotency-Key header (1..255 chars) is required');
  }
  return key;
}

/** Hash of the validated body with sorted keys, so key order in the JSON does not matter. */
export function fingerprint(body: unknown): string {
  return createHash('sha256').update(stableStringify(body)).digest('hex');
}

/** Returns the id stored for this key, or null if new; throws 409 if the body differs. */
export function lookupIdempotent(
  store: Map<string, IdempotencyEntry>,
  key: string,
  bodyFingerprint: string,
): string | null {
  const entry = store.get(key);
  if (!entry) return null;
  if (entry.fingerprint !== bodyFingerprint) {
    throw new SandboxHttpError(409, 'IDEMPOTENCY_CONFLICT', 'Idempotency-Key was already used with a different body');
  }
  return entry.resourceId;
}

function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

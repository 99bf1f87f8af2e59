/**
 * Provider → gateway callback signatures. Signature = lower-case hex HMAC-SHA256 of
 * `${timestamp}.${rawBody}` keyed with the callback secret (see core/provider.ts).
 * Pure: the caller passes the clock, so tests and replays are deterministic.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const DEFAULT_SIGNATURE_TOLERANCE_MS = 300_000;

type HeaderValue = string | string[] | null | undefined;

const TIMESTAMP_RE = /^\d{1,16}$/;
const SIGNATURE_RE = /^[0-9a-fA-F]{64}$/;

function hmac(rawBody: Buffer | string, timestampMs: number | string, secret: string): Buffer {
  // Hash the raw bytes as received: re-serialising parsed JSON would change them.
  return createHmac('sha256', secret)
    .update(`${timestampMs}.`, 'utf8')
    .update(typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody)
    .digest();
}

export function signProviderCallback(rawBody: Buffer | string, timestampMs: number, secret: string): string {
  if (!secret) throw new Error('callback secret is required');
  if (!Number.isSafeInteger(timestampMs) || timestampMs < 0) throw new RangeError('invalid timestamp');
  return hmac(rawBody, timestampMs, secret).toString('hex');
}

/**
 * True only for a well-formed, fresh (|now - ts| <= tolerance, both directions so a skewed
 * or forged future timestamp cannot extend a replay window) and matching signature.
 * Duplicate headers (arrays) are rejected: which one would be authoritative is ambiguous.
 */
export function verifyProviderCallbackSignature(
  rawBody: Buffer | string,
  timestampHeader: HeaderValue,
  signatureHeader: HeaderValue,
  secret: string,
  nowMs: number,
  toleranceMs: number = DEFAULT_SIGNATURE_TOLERANCE_MS,
): boolean {
  if (!secret || typeof timestampHeader !== 'string' || typeof signatureHeader !== 'string') return false;
  if (!TIMESTAMP_RE.test(timestampHeader) || !SIGNATURE_RE.test(signatureHeader)) return false;
  const timestampMs = Number(timestampHeader);
  if (!Number.isSafeInteger(timestampMs) || Math.abs(nowMs - timestampMs) > toleranceMs) return false;

  const expected = hmac(rawBody, timestampHeader, secret);
  const given = Buffer.from(signatureHeader, 'hex');
  // Both are 32 bytes here (regex above), which timingSafeEqual requires.
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * Partner request signatures. Signed string: `{timestamp}.{METHOD}.{path}.{rawBody}` — METHOD
 * upper case, path without host or query, body exactly as sent (empty for GET). Signature:
 * lower-case hex HMAC-SHA256 keyed with the client secret. Pure: the caller gives the clock.
 */
import crypto from 'node:crypto';

export const SIGNATURE_WINDOW_MS = 300_000;

export function signRequest(args: { timestampMs: number | string; method: string; path: string; rawBody: string | Buffer; secret: string }): string {
  return crypto
    .createHmac('sha256', args.secret)
    .update(`${args.timestampMs}.${args.method.toUpperCase()}.${args.path}.`, 'utf8')
    .update(typeof args.rawBody === 'string' ? Buffer.from(args.rawBody, 'utf8') : args.rawBody)
    .digest('hex');
}

export type SignatureCheck = { ok: true } | { ok: false; reason: 'missing' | 'malformed' | 'expired' | 'mismatch' };

export function verifyRequestSignature(args: {
  timestampHeader: string | undefined;
  signatureHeader: string | undefined;
  method: string;
  path: string;
  rawBody: string | Buffer;
  secret: string;
  nowMs: number;
  windowMs?: number;
}): SignatureCheck {
  const { timestampHeader, signatureHeader } = args;
  if (!timestampHeader || !signatureHeader) return { ok: false, reason: 'missing' };
  if (!/^\d{10,16}$/.test(timestampHeader) || !/^[0-9a-f]{64}$/.test(signatureHeader)) return { ok: false, reason: 'malformed' };
  if (Math.abs(args.nowMs - Number(timestampHeader)) > (args.windowMs ?? SIGNATURE_WINDOW_MS)) return { ok: false, reason: 'expired' };
  const expected = Buffer.from(signRequest({ ...args, timestampMs: timestampHeader }), 'hex');
  const given = Buffer.from(signatureHeader, 'hex');
  return crypto.timingSafeEqual(expected, given) ? { ok: true } : { ok: false, reason: 'mismatch' };
}

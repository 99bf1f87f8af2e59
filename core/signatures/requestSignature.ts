/**
 * Partner request signatures. Signed string: `{timestamp}.{METHOD}.{path}.{rawBody}` — METHOD
 * upper case, path without host or query, body exactly as sent (empty for GET). Signature:
 * lower-case hex HMAC-SHA256 keyed with the client secret. Pure: the caller gives the clock.
 */
import crypto from 'node:crypto';

export const SIGNATURE_WINDOW_MS = 300_000;
/** The two headers' shapes, checked before any HMAC is computed (the API document states the same patterns). */
export const SIGNATURE_TIMESTAMP_PATTERN = /^\d{10,16}$/;
export const SIGNATURE_HEX_PATTERN = /^[0-9a-f]{64}$/;

export function signRequest(args: {
  timestampMs: number | string;
  method: string;
  path: string;
  rawBody: string | Buffer;
  secret: string;
}): string {
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
  if (!SIGNATURE_TIMESTAMP_PATTERN.test(timestampHeader) || !SIGNATURE_HEX_PATTERN.test(signatureHeader))
    return { ok: false, reason: 'malformed' };
  if (Math.abs(args.nowMs - Number(timestampHeader)) > (args.windowMs ?? SIGNATURE_WINDOW_MS))
    return { ok: false, reason: 'expired' };
  const expected = Buffer.from(signRequest({ ...args, timestampMs: timestampHeader }), 'hex');
  const given = Buffer.from(signatureHeader, 'hex');
  return crypto.timingSafeEqual(expected, given) ? { ok: true } : { ok: false, reason: 'mismatch' };
}

/**
 * The headers a partner sends on a signed call: client credentials, timestamp and signature of
 * `{timestamp}.{METHOD}.{path without query}.{rawBody}`. `signingSecret` defaults to the client
 * secret (tests pass another one to prove it is refused).
 */
export function signedRequestHeaders(args: {
  clientId: string;
  clientSecret: string;
  method: string;
  path: string;
  rawBody: string;
  timestampMs?: number;
  signingSecret?: string;
}): Record<string, string> {
  const ts = args.timestampMs ?? Date.now();
  return {
    'x-client-id': args.clientId,
    'x-client-secret': args.clientSecret,
    'x-gateway-timestamp': String(ts),
    'x-gateway-signature': signRequest({
      timestampMs: ts,
      method: args.method,
      path: args.path.split('?')[0],
      rawBody: args.rawBody,
      secret: args.signingSecret ?? args.clientSecret,
    }),
  };
}

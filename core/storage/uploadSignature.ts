/**
 * The local store's signed upload URLs: `PUT /uploads/<key>?expires=<unix s>&contentType=…&maxBytes=…&signature=<hex>`,
 * where the signature is HMAC-SHA256 (server secret) over every one of those values. Changing any
 * of them (another key, a later expiry, another type, a larger size) breaks the signature.
 */
import crypto from 'node:crypto';

export interface UploadGrant {
  key: string;
  /** Unix time in seconds after which the URL is refused. */
  expires: number;
  contentType: string;
  maxBytes: number;
}

export type UploadCheck =
  { ok: true; grant: UploadGrant } | { ok: false; reason: 'malformed' | 'signature' | 'expired' };

function payload(g: UploadGrant): string {
  // Newlines cannot occur in any field (key pattern, integers, a validated media type), so the
  // encoding is unambiguous.
  return ['upload-v1', 'PUT', g.key, String(g.expires), g.contentType, String(g.maxBytes)].join('\n');
}

export function signUpload(grant: UploadGrant, secret: string): string {
  return crypto.createHmac('sha256', secret).update(payload(grant)).digest('hex');
}

/** The query string of a signed URL for `grant`. */
export function uploadQuery(grant: UploadGrant, secret: string): string {
  return new URLSearchParams({
    expires: String(grant.expires),
    contentType: grant.contentType,
    maxBytes: String(grant.maxBytes),
    signature: signUpload(grant, secret),
  }).toString();
}

const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,63}$/;
const INTEGER = /^[0-9]{1,15}$/;

/**
 * Checks a request's query (as Express parsed it: a value may be an array or missing) for `key`.
 * The signature is checked before the expiry, so a URL whose expiry was edited reads as
 * tampered, not as expired.
 */
export function verifyUpload(key: string, query: Record<string, unknown>, secret: string, nowMs: number): UploadCheck {
  const { expires, contentType, maxBytes, signature } = query;
  if (
    typeof expires !== 'string' ||
    typeof contentType !== 'string' ||
    typeof maxBytes !== 'string' ||
    typeof signature !== 'string'
  ) {
    return { ok: false, reason: 'malformed' };
  }
  if (
    !INTEGER.test(expires) ||
    !INTEGER.test(maxBytes) ||
    !MEDIA_TYPE.test(contentType) ||
    !/^[0-9a-f]{64}$/.test(signature)
  ) {
    return { ok: false, reason: 'malformed' };
  }
  const grant: UploadGrant = { key, expires: Number(expires), contentType, maxBytes: Number(maxBytes) };
  const expected = Buffer.from(signUpload(grant, secret), 'hex');
  if (!crypto.timingSafeEqual(expected, Buffer.from(signature, 'hex'))) return { ok: false, reason: 'signature' };
  if (nowMs >= grant.expires * 1000) return { ok: false, reason: 'expired' };
  return { ok: true, grant };
}

/** The media type of a Content-Type header, without parameters, lower case ('' when absent). */
export function mediaTypeOf(header: string | undefined): string {
  return (header ?? '').split(';')[0].trim().toLowerCase();
}

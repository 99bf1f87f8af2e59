/**
 * Webhook delivery signatures, both schemes every delivery carries, so a merchant verifies with
 * whichever well-known library it already has:
 *
 * - Stripe's: `gateway-signature: t=<unix seconds>,v1=<hex>[,v1=<hex>]`, each v1 the lower-case
 *   hex HMAC-SHA256 of `<t>.<raw body>` keyed with the secret string as shown (`whsec_…` included:
 *   that is what Stripe's constructEvent keys with).
 * - Standard Webhooks': `webhook-id`, `webhook-timestamp` (the same t) and
 *   `webhook-signature: v1,<base64>[ v1,<base64>]`, each the base64 HMAC-SHA256 of
 *   `<id>.<t>.<raw body>` keyed with the base64-DECODED part after `whsec_` (what the
 *   `standardwebhooks` libraries do with a `whsec_` secret).
 *
 * During a secret rotation both the new and the previous secret sign (two entries in each header).
 */
import crypto from 'node:crypto';

export const WEBHOOK_TOLERANCE_SECONDS = 300;

export function signWebhook(rawBody: string, secrets: string[], timestampSeconds: number): string {
  const signed = `${timestampSeconds}.${rawBody}`;
  const v1 = secrets.map((secret) => `v1=${crypto.createHmac('sha256', secret).update(signed, 'utf8').digest('hex')}`);
  return [`t=${timestampSeconds}`, ...v1].join(',');
}

/**
 * The key a Standard Webhooks verifier derives from a secret: the bytes the part after `whsec_`
 * encodes. Secrets issued before the Standard headers are base64url (`-`, `_`); Node decodes both
 * alphabets, so they sign with the same bytes a receiver gets after turning `-`→`+` and `_`→`/`
 * (docs/api/webhooks.md). A secret that decodes to nothing is keyed with its own text.
 */
export function standardWebhookKey(secret: string): Buffer {
  const decoded = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  return decoded.length > 0 ? decoded : Buffer.from(secret, 'utf8');
}

/** The Standard Webhooks headers of one attempt: the same `messageId` on every retry of a message. */
export function standardWebhookHeaders(
  rawBody: string,
  secrets: string[],
  messageId: string,
  timestampSeconds: number,
): { 'webhook-id': string; 'webhook-timestamp': string; 'webhook-signature': string } {
  const signed = `${messageId}.${timestampSeconds}.${rawBody}`;
  const signatures = secrets.map(
    (secret) => `v1,${crypto.createHmac('sha256', standardWebhookKey(secret)).update(signed, 'utf8').digest('base64')}`,
  );
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signatures.join(' '),
  };
}

/** What a receiver does (docs/api/webhooks.md shows the same in a few lines). */
export function verifyWebhook(
  rawBody: string,
  header: string | undefined,
  secret: string,
  nowSeconds: number,
  toleranceSeconds = WEBHOOK_TOLERANCE_SECONDS,
): boolean {
  if (!header) return false;
  const parts = header.split(',').map((p) => p.split('=') as [string, string]);
  const t = Number(parts.find(([k]) => k === 't')?.[1]);
  if (!Number.isInteger(t) || Math.abs(nowSeconds - t) > toleranceSeconds) return false;
  const expected = crypto.createHmac('sha256', secret).update(`${t}.${rawBody}`, 'utf8').digest();
  return parts
    .filter(([k, v]) => k === 'v1' && /^[0-9a-f]{64}$/.test(v ?? ''))
    .some(([, v]) => crypto.timingSafeEqual(Buffer.from(v, 'hex'), expected));
}

/**
 * Webhook delivery signatures, the scheme Stripe uses so merchants can verify with well-known
 * code: header `gateway-signature: t=<unix seconds>,v1=<hex>[,v1=<hex>]`, each v1 the lower-case
 * hex HMAC-SHA256 of `<t>.<raw body>` keyed with a webhook secret. During a secret rotation both
 * the new and the previous secret sign (two v1 entries).
 */
import crypto from 'node:crypto';

export const WEBHOOK_TOLERANCE_SECONDS = 300;

export function signWebhook(rawBody: string, secrets: string[], timestampSeconds: number): string {
  const signed = `${timestampSeconds}.${rawBody}`;
  const v1 = secrets.map((secret) => `v1=${crypto.createHmac('sha256', secret).update(signed, 'utf8').digest('hex')}`);
  return [`t=${timestampSeconds}`, ...v1].join(',');
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

/**
 * A webhook secret: `whsec_` + standard base64 of 32 random bytes. Stripe's constructEvent keys
 * with the string as shown, and the Standard Webhooks libraries decode the part after `whsec_`
 * (standard alphabet only). Secrets issued before were base64url; they keep signing
 * (core/events/signature.ts). Endpoints (api/events/endpoints) and charge-scoped webhooks
 * (api/charges/sellers) draw theirs here.
 */
import crypto from 'node:crypto';

export function newWebhookSecret(): string {
  return `whsec_${crypto.randomBytes(32).toString('base64')}`;
}

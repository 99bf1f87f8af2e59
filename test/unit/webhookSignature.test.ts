/**
 * Both signature schemes of core/events/signature.ts checked by the libraries receivers run:
 * Stripe's constructEvent (gateway-signature) and the Standard Webhooks reference verifier
 * (webhook-*), with one secret as shown to the merchant, a rotation's two secrets, and a secret
 * of the earlier base64url form.
 */
import crypto from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { signWebhook, standardWebhookHeaders } from '../../core/events/signature';
import { newWebhookSecret } from '../../core/events/secret';

const stripe = new Stripe('sk_test_offline');
const body = JSON.stringify({ eventId: 'e-1', type: 'charge.paid', data: { id: 'c1' } });
const now = () => Math.floor(Date.now() / 1000);

function headers(secrets: string[], id = 'e-1') {
  const t = now();
  return { 'gateway-signature': signWebhook(body, secrets, t), ...standardWebhookHeaders(body, secrets, id, t) };
}

it('issues secrets both libraries take as they are', () => {
  const secret = newWebhookSecret();
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  const h = headers([secret]);
  expect(stripe.webhooks.constructEvent(body, h['gateway-signature'], secret)).toMatchObject({ type: 'charge.paid' });
  expect(new Webhook(secret).verify(body, h)).toMatchObject({ type: 'charge.paid' });
});

it('signs with every secret of a rotation, space-separated, and each verifies alone', () => {
  const [next, previous] = [newWebhookSecret(), newWebhookSecret()];
  const h = headers([next, previous]);
  expect(h['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=* v1,[A-Za-z0-9+/]+=*$/);
  for (const secret of [next, previous]) {
    expect(new Webhook(secret).verify(body, h)).toMatchObject({ type: 'charge.paid' });
    expect(stripe.webhooks.constructEvent(body, h['gateway-signature'], secret)).toBeTruthy();
  }
  expect(() => new Webhook(newWebhookSecret()).verify(body, h)).toThrow();
});

it('binds the message id: the same signature under another webhook-id is refused', () => {
  const secret = newWebhookSecret();
  const h = headers([secret], 'e-1');
  expect(() => new Webhook(secret).verify(body, { ...h, 'webhook-id': 'e-2' })).toThrow();
});

it('keeps a secret of the earlier base64url form working: Stripe as shown, Standard with the alphabet translated', () => {
  let legacy: string;
  do legacy = `whsec_${crypto.randomBytes(32).toString('base64url')}`;
  while (!/[-_]/.test(legacy));
  const h = headers([legacy]);
  expect(stripe.webhooks.constructEvent(body, h['gateway-signature'], legacy)).toBeTruthy();
  // The one line docs/api/webhooks.md gives receivers holding such a secret.
  const translated = `whsec_${legacy.slice('whsec_'.length).replace(/-/g, '+').replace(/_/g, '/')}`;
  expect(new Webhook(translated).verify(body, h)).toMatchObject({ type: 'charge.paid' });
});

/**
 * Money in and out of a seller through the partner API, waited to its end: a Pix charge paid at
 * the sandbox until PAID, a withdrawal (saque) until COMPLETED. Shared by the tests that need a
 * merchant with money that moved on (MED 2.0, balance lines).
 */
import crypto from 'node:crypto';
import type { MerchantCredentials } from '../../db/identity/merchantAdmin';
import { waitFor } from './env';
import type { IntegrationStack } from './integrationStack';

const key = () => ({ 'x-idempotency-key': `seller-${crypto.randomUUID()}` });

/** POST /sellers/pix with `body`, paid at the sandbox, waited until PAID: its id. */
export async function paidSellerCharge(
  stack: IntegrationStack,
  creds: MerchantCredentials,
  body: Record<string, unknown>,
): Promise<string> {
  const created = await stack.api('POST', '/sellers/pix', { creds, body, headers: key() });
  expect(created.status).toBe(201);
  expect((await stack.pay(created.body.id)).status).toBeLessThan(300);
  await waitFor(
    async () => (await stack.api('GET', `/sellers/pix/${created.body.id}`, { creds })).body.status === 'PAID',
    'seller charge PAID',
  );
  return created.body.id as string;
}

/** POST /sellers/saques of `amountCents`, waited until COMPLETED: its id. */
export async function completedWithdrawal(
  stack: IntegrationStack,
  creds: MerchantCredentials,
  amountCents: number,
): Promise<string> {
  const res = await stack.api('POST', '/sellers/saques', { creds, body: { amountCents }, headers: key() });
  expect(res.status).toBe(201);
  await waitFor(
    async () => (await stack.api('GET', `/sellers/saques/${res.body.id}`, { creds })).body?.status === 'COMPLETED',
    'withdrawal COMPLETED',
  );
  return res.body.id as string;
}

/**
 * Fixtures of the hosted checkout page tests: a signed-in owner with a merchant, and checkouts
 * backed by a real PIX charge issued through the application API (POST /charges). The checkouts
 * and checkout_items rows are inserted with SQL here because the routes that create them (P0
 * /v1/checkouts, /checkout/sessions) belong to another branch; the page only reads these tables.
 */
import crypto from 'node:crypto';
import { AppClient, uniqueEmail } from './appClient';
import { waitFor } from './env';
import type { IntegrationStack } from './integrationStack';

export interface PageOwner {
  client: AppClient;
  merchantId: string;
}

export async function pageOwner(stack: IntegrationStack, name = 'Escola Aurora'): Promise<PageOwner> {
  const client = new AppClient(stack.apiUrl);
  const email = uniqueEmail('page-owner');
  const password = 'correct horse battery';
  await client.register({ email, password });
  await client.login(email, password);
  const merchant = await client.call('POST', '/dashboard/merchant/ensure', { body: { name, document: '11.222.333/0001-81', type: 'PRODUCER' } });
  if (merchant.status !== 200) throw new Error(`merchant ensure answered ${merchant.status}`);
  return { client, merchantId: merchant.body.id };
}

export interface PageItem {
  name: string;
  quantity: number;
  unitAmountCents: number;
}

export interface PageCheckout {
  id: string;
  chargeId: string;
  copyPaste: string;
  amountCents: number;
  url: string;
}

export async function createPageCheckout(
  stack: IntegrationStack,
  owner: PageOwner,
  opts: { items: PageItem[]; returnUrl?: string | null; completionUrl?: string | null; kind?: 'P0' | 'SESSION'; metadata?: Record<string, unknown>; externalId?: string },
): Promise<PageCheckout> {
  const amountCents = opts.items.reduce((sum, i) => sum + i.quantity * i.unitAmountCents, 0);
  const charge = await owner.client.call('POST', '/charges', {
    body: { merchantId: owner.merchantId, amountCents, description: 'Checkout' },
    headers: { 'x-idempotency-key': `page-${crypto.randomUUID()}` },
  });
  if (charge.status !== 201) throw new Error(`POST /charges answered ${charge.status}: ${JSON.stringify(charge.body)}`);
  const id = crypto.randomUUID();
  await stack.sequelize.query(
    `INSERT INTO checkouts (id, merchant_id, kind, charge_id, amount_cents, return_url, completion_url, metadata, external_id, expires_at)
     VALUES (:id, :merchantId, :kind, :chargeId, :amountCents, :returnUrl, :completionUrl, :metadata, :externalId, :expiresAt)`,
    {
      replacements: {
        id,
        merchantId: owner.merchantId,
        kind: opts.kind ?? 'P0',
        chargeId: charge.body.id,
        amountCents,
        returnUrl: opts.returnUrl ?? null,
        completionUrl: opts.completionUrl ?? null,
        metadata: JSON.stringify(opts.metadata ?? {}),
        externalId: opts.externalId ?? null,
        expiresAt: charge.body.expiresAt,
      },
    },
  );
  let position = 0;
  for (const item of opts.items) {
    await stack.sequelize.query(
      'INSERT INTO checkout_items (id, checkout_id, position, name, quantity, unit_amount_cents) VALUES (:id, :checkoutId, :position, :name, :quantity, :unit)',
      { replacements: { id: crypto.randomUUID(), checkoutId: id, position: position++, name: item.name, quantity: item.quantity, unit: item.unitAmountCents } },
    );
  }
  return { id, chargeId: charge.body.id, copyPaste: charge.body.pix.copyPaste, amountCents, url: `${stack.apiUrl}/c/${id}` };
}

export async function checkoutRow(stack: IntegrationStack, id: string): Promise<{ status: string; opened_at: Date | null }> {
  const [rows] = (await stack.sequelize.query('SELECT status, opened_at FROM checkouts WHERE id = :id', { replacements: { id } })) as [Array<{ status: string; opened_at: Date | null }>, unknown];
  return rows[0];
}

export async function setCheckoutStatus(stack: IntegrationStack, id: string, status: 'PENDING' | 'PAID' | 'EXPIRED' | 'CANCELLED' | 'REFUNDED'): Promise<void> {
  await stack.sequelize.query('UPDATE checkouts SET status = :status, updated_at = now() WHERE id = :id', { replacements: { id, status } });
}

/**
 * Pays the checkout's charge at the sandbox (its control route, as `npm run gateway -- sandbox pay`
 * does), waits for the charge lifecycle to record it, and makes sure the checkout reads PAID: the
 * lifecycle hook that moves the checkout lands with the P0 branch; until then this sets it the way
 * the hook will (a no-op once the hook has done it).
 */
export async function payCheckoutInSandbox(stack: IntegrationStack, checkout: PageCheckout): Promise<void> {
  const paid = await stack.pay(checkout.chargeId);
  if (paid.status !== 200) throw new Error(`sandbox pay answered ${paid.status}`);
  await waitForChargePaid(stack, checkout.chargeId);
  await stack.sequelize.query(
    "UPDATE checkouts SET status = 'PAID', paid_amount_cents = amount_cents, paid_at = now(), updated_at = now() WHERE id = :id AND status = 'PENDING'",
    { replacements: { id: checkout.id } },
  );
}

export async function waitForChargePaid(stack: IntegrationStack, chargeId: string): Promise<void> {
  await waitFor(async () => {
    const [rows] = (await stack.sequelize.query('SELECT status FROM charges WHERE id = :id', { replacements: { id: chargeId } })) as [Array<{ status: string }>, unknown];
    return rows[0]?.status === 'PAID' ? true : undefined;
  }, 'charge PAID');
}

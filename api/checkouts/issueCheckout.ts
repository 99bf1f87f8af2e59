/**
 * Issues a checkout (partner P0 or application-API session): its PIX charge through the one issue
 * path (issueCharge), with the checkout and its items carried in the workflow input, so the
 * charge's record step stores them in the same transaction as the charge. The charge id is
 * derived from the checkout id: a retried request joins the same charge instead of issuing another.
 */
import crypto from 'node:crypto';
import { checkoutStore, type Checkout } from '../../db/checkouts';
import type { Merchant } from '../../db/identity';
import type { CheckoutItemInput } from '../../workflows/charges/types';
import { chargeFee } from '../../core/charges/issueRules';
import type { IssueDeps } from '../../db/charges';
import { issueCharge } from '../charges/issueCharge';

export interface CheckoutToIssue {
  id: string;
  kind: 'P0' | 'SESSION';
  amountCents: number;
  expiresAt: Date;
  items: CheckoutItemInput[];
  externalId: string | null;
  returnUrl: string | null;
  completionUrl: string | null;
  /** The caller's public metadata: on the checkout ({} when absent) and the charge (null when absent). */
  metadata: Record<string, unknown> | undefined;
  idempotencyKey: string;
}

export async function issueCheckout(
  deps: IssueDeps & { defaultFee: { bps: number; fixedCents: number } },
  merchant: Merchant,
  checkout: CheckoutToIssue,
): Promise<Checkout> {
  const names = checkout.items.map((i) => i.name).filter((n): n is string => Boolean(n));
  await issueCharge(deps, {
    chargeId: chargeIdOf(checkout.id),
    merchantId: merchant.id,
    amountCents: checkout.amountCents,
    feeCents: chargeFee(merchant, deps.defaultFee, checkout.amountCents),
    description: names.length ? describe(names) : null,
    externalRef: checkout.externalId,
    metadata: checkout.metadata ?? null,
    splits: [],
    expiresAt: checkout.expiresAt.toISOString(),
    idempotencyKey: checkout.idempotencyKey,
    payer: null,
    webhook: null,
    checkout: {
      id: checkout.id,
      kind: checkout.kind,
      externalId: checkout.externalId,
      returnUrl: checkout.returnUrl,
      completionUrl: checkout.completionUrl,
      metadata: checkout.metadata ?? {},
      idempotencyKey: checkout.idempotencyKey,
      items: checkout.items,
    },
  });
  const stored = await checkoutStore.findCheckout(checkout.id);
  if (!stored) throw new Error(`checkout ${checkout.id} issued but not stored`);
  return stored;
}

/** The charge's description: the distinct item names, within the column's 255 characters. */
function describe(names: string[]): string {
  const joined = [...new Set(names)].join(', ');
  return joined.length > 255 ? `${joined.slice(0, 252)}...` : joined;
}

/**
 * The charge id of a checkout, derived from the checkout id: a request that resumes an
 * idempotency claim joins the same charge workflow instead of issuing a second charge.
 */
export function chargeIdOf(checkoutId: string): string {
  const h = crypto.createHash('sha256').update(`checkout-charge:${checkoutId}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${((parseInt(h[16], 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

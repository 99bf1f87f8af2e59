/**
 * The two public shapes of a checkout row: the partner's P0 public object (spec "Checkout P0
 * public object", Versioning rule 4 constants) and the application API's checkout session. Pure:
 * the API answers with them and the activities put them in checkout.* events, so both agree.
 */
import { billId, checkoutPageUrl } from './urls';

export interface CheckoutRowView {
  id: string;
  merchantId: string;
  kind: 'P0' | 'SESSION';
  chargeId: string;
  status: 'PENDING' | 'PAID' | 'EXPIRED' | 'CANCELLED' | 'REFUNDED';
  amountCents: number;
  paidAmountCents: number | null;
  externalId: string | null;
  returnUrl: string | null;
  completionUrl: string | null;
  metadata: Record<string, unknown>;
  expiresAt: Date;
  openedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface CheckoutItemView {
  priceId: string | null;
  quantity: number;
}

export type SessionStatus = 'CREATED' | 'OPENED' | 'COMPLETED' | 'EXPIRED';

/** Session status from the P0 status and whether the page was opened (see migration 0020). */
export function sessionStatus(row: Pick<CheckoutRowView, 'status' | 'openedAt'>): SessionStatus {
  if (row.status === 'PENDING') return row.openedAt ? 'OPENED' : 'CREATED';
  if (row.status === 'PAID' || row.status === 'REFUNDED') return 'COMPLETED';
  return 'EXPIRED';
}

export function presentP0Checkout(row: CheckoutRowView, items: CheckoutItemView[], publicBaseUrl: string) {
  return {
    id: billId(row.id),
    externalId: row.externalId,
    url: checkoutPageUrl(publicBaseUrl, row.id),
    amount: row.amountCents,
    paidAmount: row.paidAmountCents,
    items: items.map((item) => ({ id: item.priceId as string, quantity: item.quantity })),
    status: row.status,
    frequency: 'ONE_TIME' as const,
    coupons: [] as never[],
    devMode: false as const,
    customerId: null,
    returnUrl: row.returnUrl,
    completionUrl: row.completionUrl,
    receiptUrl: null,
    metadata: row.metadata ?? {},
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function presentCheckoutSession(row: CheckoutRowView, publicBaseUrl: string) {
  return {
    id: row.id,
    merchantId: row.merchantId,
    status: sessionStatus(row),
    amountCents: row.amountCents,
    url: checkoutPageUrl(publicBaseUrl, row.id),
    expiresAt: row.expiresAt.toISOString(),
    createdAt: row.createdAt.toISOString(),
    chargeId: row.chargeId,
  };
}

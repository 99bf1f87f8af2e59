/**
 * What the hosted checkout page reads: one checkout with its merchant's name and branding, its
 * items and its charge's Pix code (db/checkouts/checkoutStore.ts reads them), and the status the
 * buyer is shown.
 */
import type { Sequelize } from 'sequelize';
import { checkoutStore } from '../../../db/checkouts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The page's id: the checkout's UUID or its P0 public id `bill_<uuid>`; anything else null. */
export function parseCheckoutId(raw: string): string | null {
  const id = raw.startsWith('bill_') ? raw.slice('bill_'.length) : raw;
  return UUID.test(id) ? id.toLowerCase() : null;
}

/** What the buyer is shown. EXPIRED covers CANCELLED and a PENDING checkout past its expiry. */
export type PageStatus = 'PENDING' | 'PAID' | 'EXPIRED' | 'CANCELLED' | 'REFUNDED';

export interface CheckoutPageView {
  id: string;
  status: PageStatus;
  amountCents: number;
  expiresAt: Date;
  returnUrl: string | null;
  completionUrl: string | null;
  merchantName: string;
  logoUrl: string | null;
  brandColor: string | null;
  chargeId: string;
  copyPaste: string | null;
  items: { name: string; quantity: number; unitAmountCents: number }[];
}

/**
 * A PENDING checkout whose expiry has passed reads EXPIRED before the lifecycle closes it: its Pix
 * code can no longer be paid, so the buyer must not be shown it. (A late payment still lands: the
 * lifecycle marks it PAID and the page follows.)
 */
function pageStatus(status: PageStatus, expiresAt: Date, now: Date): PageStatus {
  return status === 'PENDING' && expiresAt.getTime() <= now.getTime() ? 'EXPIRED' : status;
}

export async function loadCheckoutStatus(
  sequelize: Sequelize,
  id: string,
): Promise<{ status: PageStatus; completionUrl: string | null } | null> {
  const row = await checkoutStore.pageStatusRow(sequelize, id);
  if (!row) return null;
  return { status: pageStatus(row.status, row.expiresAt, new Date()), completionUrl: row.completionUrl };
}

export async function loadCheckoutPage(sequelize: Sequelize, id: string): Promise<CheckoutPageView | null> {
  const row = await checkoutStore.pageRow(sequelize, id);
  if (!row) return null;
  return { ...row, status: pageStatus(row.status, row.expiresAt, new Date()) };
}

/** The first view of a CREATED session makes it OPENED (checkout sessions' status); later views change nothing. */
export function markOpened(sequelize: Sequelize, id: string): Promise<void> {
  return checkoutStore.markOpened(sequelize, id);
}

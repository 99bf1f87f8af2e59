/**
 * What the hosted checkout page reads: one checkout with its merchant's name and branding, its
 * items and its charge's Pix code. Raw SQL over the checkouts tables (migration 0020), selecting
 * only what the buyer sees: no merchant id, metadata, external id or payer is read at all.
 */
import { QueryTypes, type Sequelize } from 'sequelize';

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

interface Row {
  id: string;
  status: PageStatus;
  amount_cents: string;
  expires_at: Date;
  return_url: string | null;
  completion_url: string | null;
  merchant_name: string;
  brand_logo_url: string | null;
  brand_color: string | null;
  charge_id: string;
  copy_paste: string | null;
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
  const rows = await sequelize.query<{ status: PageStatus; expires_at: Date; completion_url: string | null }>(
    'SELECT status, expires_at, completion_url FROM checkouts WHERE id = :id',
    { replacements: { id }, type: QueryTypes.SELECT },
  );
  if (rows.length === 0) return null;
  return {
    status: pageStatus(rows[0].status, new Date(rows[0].expires_at), new Date()),
    completionUrl: rows[0].completion_url,
  };
}

export async function loadCheckoutPage(sequelize: Sequelize, id: string): Promise<CheckoutPageView | null> {
  const rows = await sequelize.query<Row>(
    `SELECT c.id, c.status, c.amount_cents, c.expires_at, c.return_url, c.completion_url, c.charge_id,
            m.name AS merchant_name, m.brand_logo_url, m.brand_color, ch.pix->>'copyPaste' AS copy_paste
       FROM checkouts c
       JOIN merchants m ON m.id = c.merchant_id
       JOIN charges ch ON ch.id = c.charge_id
      WHERE c.id = :id`,
    { replacements: { id }, type: QueryTypes.SELECT },
  );
  if (rows.length === 0) return null;
  const row = rows[0];
  // P0 items are course prices (the course title is the name); session items carry their own name.
  const items = await sequelize.query<{ name: string | null; quantity: number; unit_amount_cents: string }>(
    `SELECT COALESCE(i.name, co.title) AS name, i.quantity, i.unit_amount_cents
       FROM checkout_items i LEFT JOIN courses co ON co.id = i.course_id
      WHERE i.checkout_id = :id ORDER BY i.position`,
    { replacements: { id }, type: QueryTypes.SELECT },
  );
  const expiresAt = new Date(row.expires_at);
  return {
    id: row.id,
    status: pageStatus(row.status, expiresAt, new Date()),
    amountCents: Number(row.amount_cents),
    expiresAt,
    returnUrl: row.return_url,
    completionUrl: row.completion_url,
    merchantName: row.merchant_name,
    logoUrl: row.brand_logo_url,
    brandColor: row.brand_color,
    chargeId: row.charge_id,
    copyPaste: row.copy_paste,
    items: items.map((i) => ({
      name: i.name ?? 'Item',
      quantity: Number(i.quantity),
      unitAmountCents: Number(i.unit_amount_cents),
    })),
  };
}

/** The first view of a CREATED session makes it OPENED (checkout sessions' status); later views change nothing. */
export async function markOpened(sequelize: Sequelize, id: string): Promise<void> {
  await sequelize.query(
    "UPDATE checkouts SET opened_at = now(), updated_at = now() WHERE id = :id AND opened_at IS NULL AND status = 'PENDING'",
    {
      replacements: { id },
    },
  );
}

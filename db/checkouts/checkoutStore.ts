/**
 * The checkouts and checkout_items tables (migration 0020): their one writer (the rows are stored
 * with their charge and moved by its lifecycle: activities/checkouts/checkoutEffects.ts calls
 * here) and the way to read them, including what the hosted checkout page shows (raw SQL selecting only what the buyer
 * sees: no merchant id, metadata, external id or payer is read at all).
 */
import crypto from 'node:crypto';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { CheckoutRowView } from '../../core/checkouts/present';
import { Checkout, CheckoutItem, type CheckoutKind, type CheckoutStatus } from './checkout';

export function findCheckout(id: string): Promise<Checkout | null> {
  return Checkout.findByPk(id);
}

/** The checkout of this kind (of this merchant, when named); another kind or merchant's is not found. */
export function findCheckoutOfKind(id: string, kind: CheckoutKind, merchantId?: string): Promise<Checkout | null> {
  return Checkout.findOne({ where: { id, kind, ...(merchantId !== undefined ? { merchantId } : {}) } });
}

/** Whether the merchant has a P0 checkout with this id. */
export async function isMerchantP0(merchantId: string, id: string): Promise<boolean> {
  return Boolean(await Checkout.findOne({ where: { id, merchantId, kind: 'P0' }, attributes: ['id'] }));
}

/**
 * Ids of a merchant's P0 checkouts, newest first by (created_at, id), at most `limit`; `after`
 * is the last id of the previous page, compared in SQL (microsecond timestamps).
 */
export async function p0CheckoutIds(
  sequelize: Sequelize,
  q: {
    merchantId: string;
    after: string | null;
    id: string | null;
    externalId?: string;
    status?: CheckoutStatus;
    limit: number;
  },
): Promise<string[]> {
  const rows = await sequelize.query<{ id: string }>(
    `SELECT id FROM checkouts
     WHERE merchant_id = :merchantId AND kind = 'P0'
       ${q.after ? 'AND (created_at, id) < (SELECT created_at, id FROM checkouts WHERE id = :after)' : ''}
       ${q.id ? 'AND id = :id' : ''}
       ${q.externalId !== undefined ? 'AND external_id = :externalId' : ''}
       ${q.status !== undefined ? 'AND status = :status' : ''}
     ORDER BY created_at DESC, id DESC
     LIMIT :limit`,
    {
      replacements: {
        merchantId: q.merchantId,
        after: q.after,
        id: q.id,
        externalId: q.externalId ?? null,
        status: q.status ?? null,
        limit: q.limit,
      },
      type: QueryTypes.SELECT,
    },
  );
  return rows.map((r) => r.id);
}

export function findCheckouts(ids: string[]): Promise<Checkout[]> {
  return Checkout.findAll({ where: { id: ids } });
}

/** The items of these checkouts, in position order, by checkout id. */
export async function itemsOf(checkoutIds: string[]): Promise<Map<string, CheckoutItem[]>> {
  const items = checkoutIds.length
    ? await CheckoutItem.findAll({ where: { checkoutId: checkoutIds }, order: [['position', 'ASC']] })
    : [];
  const grouped = new Map<string, CheckoutItem[]>();
  for (const item of items) grouped.set(item.checkoutId, [...(grouped.get(item.checkoutId) ?? []), item]);
  return grouped;
}

// --- the hosted page -----------------------------------------------------------------------

export async function pageStatusRow(
  sequelize: Sequelize,
  id: string,
): Promise<{ status: CheckoutStatus; expiresAt: Date; completionUrl: string | null } | null> {
  const rows = await sequelize.query<{ status: CheckoutStatus; expires_at: Date; completion_url: string | null }>(
    'SELECT status, expires_at, completion_url FROM checkouts WHERE id = :id',
    { replacements: { id }, type: QueryTypes.SELECT },
  );
  if (rows.length === 0) return null;
  return { status: rows[0].status, expiresAt: new Date(rows[0].expires_at), completionUrl: rows[0].completion_url };
}

export interface CheckoutPageRow {
  id: string;
  status: CheckoutStatus;
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

interface PageRow {
  id: string;
  status: CheckoutStatus;
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

/** One checkout as its page shows it: with its merchant's name and branding, its items and its charge's Pix code. */
export async function pageRow(sequelize: Sequelize, id: string): Promise<CheckoutPageRow | null> {
  const rows = await sequelize.query<PageRow>(
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
  return {
    id: row.id,
    status: row.status,
    amountCents: Number(row.amount_cents),
    expiresAt: new Date(row.expires_at),
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

/** The charge behind a checkout, or null when there is no such checkout. */
export async function chargeIdOfCheckout(id: string): Promise<string | null> {
  const checkout = await Checkout.findByPk(id, { attributes: ['chargeId'] });
  return checkout?.chargeId ?? null;
}

// --- what a charge's lifecycle does to its checkout (activities/checkouts/checkoutEffects.ts) ---

/** Stores a checkout and its items, with the charge it is recorded with (same transaction). */
export async function insertCheckout(
  sequelize: Sequelize,
  checkout: {
    id: string;
    merchantId: string;
    kind: CheckoutKind;
    chargeId: string;
    amountCents: number;
    externalId: string | null;
    returnUrl: string | null;
    completionUrl: string | null;
    metadata: Record<string, unknown>;
    idempotencyKey: string | null;
    expiresAt: string;
  },
  items: {
    priceId: string | null;
    courseId: string | null;
    name: string | null;
    quantity: number;
    unitAmountCents: number;
  }[],
  transaction: Transaction,
): Promise<void> {
  await sequelize.query(
    `INSERT INTO checkouts (id, merchant_id, kind, charge_id, amount_cents, external_id, return_url, completion_url, metadata, idempotency_key, expires_at)
     VALUES (:id, :merchantId, :kind, :chargeId, :amountCents, :externalId, :returnUrl, :completionUrl, CAST(:metadata AS JSONB), :idempotencyKey, :expiresAt)`,
    {
      replacements: { ...checkout, metadata: JSON.stringify(checkout.metadata) },
      transaction,
    },
  );
  for (const [position, item] of items.entries()) {
    await sequelize.query(
      `INSERT INTO checkout_items (id, checkout_id, position, price_id, course_id, name, quantity, unit_amount_cents)
       VALUES (:id, :checkoutId, :position, :priceId, :courseId, :name, :quantity, :unitAmountCents)`,
      { replacements: { id: crypto.randomUUID(), checkoutId: checkout.id, position, ...item }, transaction },
    );
  }
}

interface CheckoutRow {
  id: string;
  merchant_id: string;
  kind: CheckoutKind;
  charge_id: string;
  status: CheckoutStatus;
  amount_cents: string;
  paid_amount_cents: string | null;
  external_id: string | null;
  return_url: string | null;
  completion_url: string | null;
  metadata: Record<string, unknown>;
  expires_at: Date;
  opened_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

function rowView(row: CheckoutRow): CheckoutRowView {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    kind: row.kind,
    chargeId: row.charge_id,
    status: row.status,
    amountCents: Number(row.amount_cents),
    paidAmountCents: row.paid_amount_cents === null ? null : Number(row.paid_amount_cents),
    externalId: row.external_id,
    returnUrl: row.return_url,
    completionUrl: row.completion_url,
    metadata: row.metadata ?? {},
    expiresAt: new Date(row.expires_at),
    openedAt: row.opened_at ? new Date(row.opened_at) : null,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

/** Moves the checkout of a charge (`set`) if it is in a state `when` allows; answers it moved, or null. */
async function move(
  sequelize: Sequelize,
  set: string,
  when: string,
  replacements: Record<string, unknown>,
  transaction: Transaction,
): Promise<CheckoutRowView | null> {
  const rows = await sequelize.query<CheckoutRow>(
    `UPDATE checkouts SET ${set}, updated_at = now() WHERE charge_id = :chargeId AND ${when} RETURNING *`,
    { replacements, type: QueryTypes.SELECT, transaction },
  );
  return rows[0] ? rowView(rows[0]) : null;
}

/** PAID (even late: from PENDING, EXPIRED or CANCELLED). */
export function markPaid(
  sequelize: Sequelize,
  args: { chargeId: string; amountCents: number; paidAt: Date },
  transaction: Transaction,
) {
  return move(
    sequelize,
    `status = 'PAID', paid_amount_cents = :amountCents, paid_at = :paidAt`,
    `status IN ('PENDING', 'EXPIRED', 'CANCELLED')`,
    args,
    transaction,
  );
}

/** EXPIRED or CANCELLED, from PENDING. */
export function markClosed(
  sequelize: Sequelize,
  args: { chargeId: string; status: 'EXPIRED' | 'CANCELLED' },
  transaction: Transaction,
) {
  return move(sequelize, `status = :status, closed_at = now()`, `status = 'PENDING'`, args, transaction);
}

/** REFUNDED, from PAID. */
export function markRefunded(sequelize: Sequelize, chargeId: string, transaction: Transaction) {
  return move(sequelize, `status = 'REFUNDED', refunded_at = now()`, `status = 'PAID'`, { chargeId }, transaction);
}

/** The checkout's items as a P0 checkout shows them (price and quantity), in order. */
export async function priceItemsOf(
  sequelize: Sequelize,
  checkoutId: string,
  transaction: Transaction,
): Promise<{ priceId: string | null; quantity: number }[]> {
  const items = await sequelize.query<{ price_id: string | null; quantity: number }>(
    `SELECT price_id, quantity FROM checkout_items WHERE checkout_id = :id ORDER BY position`,
    { replacements: { id: checkoutId }, type: QueryTypes.SELECT, transaction },
  );
  return items.map((i) => ({ priceId: i.price_id, quantity: i.quantity }));
}

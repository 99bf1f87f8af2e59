/**
 * What a charge's lifecycle does to the checkout it backs (if any), in the caller's transaction:
 * the checkout row and its items are stored with the charge; paid → PAID + enrolments (once per
 * course: ON CONFLICT DO NOTHING) + checkout.paid; expired/cancelled → EXPIRED/CANCELLED + event;
 * fully refunded → REFUNDED, enrolments REVOKED + checkout.refunded. Each step is conditional
 * on the current status and its event is keyed by the outbox, so a replayed activity changes
 * nothing twice. Plain charges (no checkout row) are untouched.
 */
import crypto from 'node:crypto';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { ChargeLifecycleInput } from '../../workflows/charges/types';
import { presentCheckoutSession, presentP0Checkout, type CheckoutRowView } from '../../core/checkouts/present';
import { recordEvent } from '../events/outbox';

interface CheckoutRow {
  id: string;
  merchant_id: string;
  kind: 'P0' | 'SESSION';
  charge_id: string;
  status: CheckoutRowView['status'];
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

export class CheckoutEffects {
  constructor(
    private readonly sequelize: Sequelize,
    private readonly publicBaseUrl: string,
  ) {}

  /** Stores the checkout of a charge being recorded (recordCharge), with its items. */
  async insert(input: ChargeLifecycleInput, transaction: Transaction): Promise<void> {
    const checkout = input.checkout;
    if (!checkout) return;
    await this.sequelize.query(
      `INSERT INTO checkouts (id, merchant_id, kind, charge_id, amount_cents, external_id, return_url, completion_url, metadata, idempotency_key, expires_at)
       VALUES (:id, :merchantId, :kind, :chargeId, :amountCents, :externalId, :returnUrl, :completionUrl, CAST(:metadata AS JSONB), :idempotencyKey, :expiresAt)`,
      {
        replacements: {
          id: checkout.id,
          merchantId: input.merchantId,
          kind: checkout.kind,
          chargeId: input.chargeId,
          amountCents: input.amountCents,
          externalId: checkout.externalId,
          returnUrl: checkout.returnUrl,
          completionUrl: checkout.completionUrl,
          metadata: JSON.stringify(checkout.metadata ?? {}),
          idempotencyKey: checkout.idempotencyKey,
          expiresAt: input.expiresAt,
        },
        transaction,
      },
    );
    for (const [position, item] of checkout.items.entries()) {
      await this.sequelize.query(
        `INSERT INTO checkout_items (id, checkout_id, position, price_id, course_id, name, quantity, unit_amount_cents)
         VALUES (:id, :checkoutId, :position, :priceId, :courseId, :name, :quantity, :unitAmountCents)`,
        { replacements: { id: crypto.randomUUID(), checkoutId: checkout.id, position, ...item }, transaction },
      );
    }
  }

  /** The charge was paid (even late): PAID, enrolments, checkout.paid. */
  async paid(
    args: {
      chargeId: string;
      amountCents: number;
      paidAt: Date;
      studentName: string | null;
      studentDocument: string | null;
    },
    transaction: Transaction,
  ): Promise<void> {
    const row = await this.move(
      `status = 'PAID', paid_amount_cents = :amountCents, paid_at = :paidAt`,
      `status IN ('PENDING', 'EXPIRED', 'CANCELLED')`,
      { chargeId: args.chargeId, amountCents: args.amountCents, paidAt: args.paidAt },
      transaction,
    );
    if (!row) return;
    await this.sequelize.query(
      `INSERT INTO enrolments (id, merchant_id, course_id, checkout_id, status, student_name, student_document)
       SELECT gen_random_uuid(), :merchantId, course_id, :checkoutId, 'ACTIVE', :studentName, :studentDocument
       FROM (SELECT DISTINCT course_id FROM checkout_items WHERE checkout_id = :checkoutId AND course_id IS NOT NULL) AS courses
       ON CONFLICT (checkout_id, course_id) DO NOTHING`,
      {
        replacements: {
          merchantId: row.merchant_id,
          checkoutId: row.id,
          studentName: args.studentName,
          studentDocument: args.studentDocument,
        },
        transaction,
      },
    );
    await this.event('checkout.paid', row, transaction);
  }

  /** The unpaid charge was closed: EXPIRED or CANCELLED, and its event. */
  async closed(args: { chargeId: string; status: 'EXPIRED' | 'CANCELLED' }, transaction: Transaction): Promise<void> {
    const row = await this.move(
      `status = :status, closed_at = now()`,
      `status = 'PENDING'`,
      { chargeId: args.chargeId, status: args.status },
      transaction,
    );
    if (row) await this.event(args.status === 'EXPIRED' ? 'checkout.expired' : 'checkout.cancelled', row, transaction);
  }

  /** The charge is now fully refunded: REFUNDED, enrolments REVOKED, checkout.refunded. Partial refunds keep access. */
  async refunded(args: { chargeId: string }, transaction: Transaction): Promise<void> {
    const row = await this.move(
      `status = 'REFUNDED', refunded_at = now()`,
      `status = 'PAID'`,
      { chargeId: args.chargeId },
      transaction,
    );
    if (!row) return;
    await this.sequelize.query(
      `UPDATE enrolments SET status = 'REVOKED', revoked_at = now(), revoked_reason = 'REFUNDED', updated_at = now()
       WHERE checkout_id = :checkoutId AND status = 'ACTIVE'`,
      { replacements: { checkoutId: row.id }, transaction },
    );
    await this.event('checkout.refunded', row, transaction);
  }

  private async move(
    set: string,
    when: string,
    replacements: Record<string, unknown>,
    transaction: Transaction,
  ): Promise<CheckoutRow | null> {
    const rows = await this.sequelize.query<CheckoutRow>(
      `UPDATE checkouts SET ${set}, updated_at = now() WHERE charge_id = :chargeId AND ${when} RETURNING *`,
      { replacements, type: QueryTypes.SELECT, transaction },
    );
    return rows[0] ?? null;
  }

  private async event(type: string, row: CheckoutRow, transaction: Transaction): Promise<void> {
    const view = rowView(row);
    let payload: Record<string, unknown>;
    if (row.kind === 'P0') {
      const items = await this.sequelize.query<{ price_id: string | null; quantity: number }>(
        `SELECT price_id, quantity FROM checkout_items WHERE checkout_id = :id ORDER BY position`,
        { replacements: { id: row.id }, type: QueryTypes.SELECT, transaction },
      );
      payload = presentP0Checkout(
        view,
        items.map((i) => ({ priceId: i.price_id, quantity: i.quantity })),
        this.publicBaseUrl,
      );
    } else {
      payload = { ...presentCheckoutSession(view, this.publicBaseUrl), updatedAt: view.updatedAt.toISOString() };
    }
    await recordEvent(
      { type, merchantId: row.merchant_id, aggregateType: 'checkout', aggregateId: row.id, payload },
      transaction,
    );
  }
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

/**
 * The API's public base URL, where checkout pages live: PUBLIC_BASE_URL when the worker is given
 * it, else the base of the provider callback URL (built from PUBLIC_BASE_URL in workers/main.ts).
 */
export function checkoutBaseUrl(deps: { publicBaseUrl?: string; providerCallbackUrl?: string }): string {
  if (deps.publicBaseUrl) return deps.publicBaseUrl;
  return (deps.providerCallbackUrl ?? 'http://127.0.0.1').replace(/\/webhooks\/pix-gateway\/?$/, '');
}

/**
 * What a charge's lifecycle does to the checkout it backs (if any), in the caller's transaction:
 * the checkout row and its items are stored with the charge; paid → PAID + enrolments (once per
 * course: ON CONFLICT DO NOTHING) + checkout.paid; expired/cancelled → EXPIRED/CANCELLED + event;
 * fully refunded → REFUNDED, enrolments REVOKED + checkout.refunded. Each step is conditional
 * on the current status and its event is keyed by the outbox, so a replayed activity changes
 * nothing twice. Plain charges (no checkout row) are untouched.
 */
import type { Sequelize, Transaction } from 'sequelize';
import type { ChargeLifecycleInput } from '../../workflows/charges/types';
import { presentCheckoutSession, presentP0Checkout, type CheckoutRowView } from '../../core/checkouts/present';
import { checkoutStore } from '../../db/checkouts';
import { enrolmentStore } from '../../db/marketplace';
import { recordEvent } from '../events/outbox';

export class CheckoutEffects {
  constructor(
    private readonly sequelize: Sequelize,
    private readonly publicBaseUrl: string,
  ) {}

  /** Stores the checkout of a charge being recorded (recordCharge), with its items. */
  async insert(input: ChargeLifecycleInput, transaction: Transaction): Promise<void> {
    const checkout = input.checkout;
    if (!checkout) return;
    await checkoutStore.insertCheckout(
      this.sequelize,
      {
        id: checkout.id,
        merchantId: input.merchantId,
        kind: checkout.kind,
        chargeId: input.chargeId,
        amountCents: input.amountCents,
        externalId: checkout.externalId,
        returnUrl: checkout.returnUrl,
        completionUrl: checkout.completionUrl,
        metadata: checkout.metadata ?? {},
        idempotencyKey: checkout.idempotencyKey,
        expiresAt: input.expiresAt,
      },
      checkout.items,
      transaction,
    );
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
    const row = await checkoutStore.markPaid(
      this.sequelize,
      { chargeId: args.chargeId, amountCents: args.amountCents, paidAt: args.paidAt },
      transaction,
    );
    if (!row) return;
    await enrolmentStore.enrolForCheckout(
      this.sequelize,
      {
        merchantId: row.merchantId,
        checkoutId: row.id,
        studentName: args.studentName,
        studentDocument: args.studentDocument,
      },
      transaction,
    );
    await this.event('checkout.paid', row, transaction);
  }

  /** The unpaid charge was closed: EXPIRED or CANCELLED, and its event. */
  async closed(args: { chargeId: string; status: 'EXPIRED' | 'CANCELLED' }, transaction: Transaction): Promise<void> {
    const row = await checkoutStore.markClosed(this.sequelize, args, transaction);
    if (row) await this.event(args.status === 'EXPIRED' ? 'checkout.expired' : 'checkout.cancelled', row, transaction);
  }

  /** The charge is now fully refunded: REFUNDED, enrolments REVOKED, checkout.refunded. Partial refunds keep access. */
  async refunded(args: { chargeId: string }, transaction: Transaction): Promise<void> {
    const row = await checkoutStore.markRefunded(this.sequelize, args.chargeId, transaction);
    if (!row) return;
    await enrolmentStore.revokeForCheckout(this.sequelize, row.id, transaction);
    await this.event('checkout.refunded', row, transaction);
  }

  private async event(type: string, view: CheckoutRowView, transaction: Transaction): Promise<void> {
    let payload: Record<string, unknown>;
    if (view.kind === 'P0') {
      const items = await checkoutStore.priceItemsOf(this.sequelize, view.id, transaction);
      payload = presentP0Checkout(view, items, this.publicBaseUrl);
    } else {
      payload = { ...presentCheckoutSession(view, this.publicBaseUrl), updatedAt: view.updatedAt.toISOString() };
    }
    await recordEvent(
      { type, merchantId: view.merchantId, aggregateType: 'checkout', aggregateId: view.id, payload },
      transaction,
    );
  }
}

/**
 * The API's public base URL, where checkout pages live: PUBLIC_BASE_URL when the worker is given
 * it, else the base of the provider callback URL (built from PUBLIC_BASE_URL in workers/main.ts).
 */
export function checkoutBaseUrl(deps: { publicBaseUrl?: string; providerCallbackUrl?: string }): string {
  if (deps.publicBaseUrl) return deps.publicBaseUrl;
  return (deps.providerCallbackUrl ?? 'http://127.0.0.1').replace(/\/webhooks\/pix-gateway\/?$/, '');
}

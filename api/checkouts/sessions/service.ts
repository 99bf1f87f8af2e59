/**
 * Checkout sessions (application API): a hosted checkout page for an amount, for a merchant the
 * caller belongs to. The same table, issue path, page and lifecycle as partner P0 checkouts
 * (kind SESSION): successUrl → completion_url, cancelUrl → return_url, externalRef → external_id.
 * Another merchant's session is 404, whatever the caller's roles elsewhere.
 */
import { checkoutStore, type Checkout } from '../../../db/checkouts';
import { merchantStore } from '../../../db/identity';
import { chargeExpiryOrInvalid } from '../../charges/issueCharge';
import { issueCheckout } from '../issueCheckout';
import { ANY_ROLE, requireRole, roleErrors } from '../../identity/auth/roles';
import { ApiError } from '../../errors/apiError';
import { presentCheckoutSession, sessionStatus } from '../../../core/checkouts/present';
import { checkUrls, type CheckoutIssueDeps } from '../partner/service';
import type { CreateSessionBody } from './schema';

export const sessionErrors = {
  notFound: () => new ApiError(404, 'CHECKOUT_NOT_FOUND', 'checkout session not found'),
};

export class CheckoutSessionService {
  constructor(private readonly deps: Omit<CheckoutIssueDeps, 'sequelize'>) {}

  checkUrls(body: CreateSessionBody): void {
    checkUrls({ successUrl: body.successUrl, cancelUrl: body.cancelUrl }, this.deps.production);
  }

  async create(body: CreateSessionBody, sessionId: string, resuming: boolean, idempotencyKey: string) {
    if (resuming) {
      const existing = await checkoutStore.findCheckout(sessionId);
      if (existing) return this.present(existing);
    }
    const merchant = await merchantStore.findMerchant(body.merchantId);
    if (!merchant || !merchant.active) throw roleErrors.merchantNotFound();
    const items = (body.items ?? []).map((item) => ({
      priceId: null,
      courseId: null,
      name: item.name,
      quantity: item.quantity,
      unitAmountCents: item.unitAmountCents,
    }));
    const stored = await issueCheckout(this.deps, merchant, {
      id: sessionId,
      kind: 'SESSION',
      amountCents: body.amountCents,
      expiresAt: chargeExpiryOrInvalid(undefined, new Date(), this.deps.defaultChargeTtlSeconds),
      items,
      externalId: body.externalRef ?? null,
      returnUrl: body.cancelUrl ?? null,
      completionUrl: body.successUrl ?? null,
      metadata: body.metadata,
      idempotencyKey,
    });
    return this.present(stored);
  }

  async read(userId: string, id: string) {
    return this.present(await this.owned(userId, id));
  }

  async status(userId: string, id: string) {
    const row = await this.owned(userId, id);
    return { id: row.id, status: sessionStatus(row), updatedAt: row.updatedAt.toISOString() };
  }

  private present(row: Checkout) {
    return presentCheckoutSession(row, this.deps.publicBaseUrl);
  }

  /** The session, when the caller is a member of its merchant; anyone else: 404. */
  private async owned(userId: string, id: string): Promise<Checkout> {
    const row = await checkoutStore.findCheckoutOfKind(id, 'SESSION');
    if (!row) throw sessionErrors.notFound();
    try {
      await requireRole(userId, row.merchantId, ANY_ROLE);
    } catch (err) {
      if ((err as ApiError).code === 'MERCHANT_NOT_FOUND') throw sessionErrors.notFound();
      throw err;
    }
    return row;
  }
}

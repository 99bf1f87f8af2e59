/**
 * Partner checkouts P0: creating one (course prices → one PIX charge through the one issue path,
 * the checkout row stored with the charge by recordCharge), reading one, listing them by keyset.
 *
 * Item checks, per item in order, the first failure answers:
 *   1. the price exists                     else 422 COURSE_PRICE_NOT_FOUND
 *   2. it belongs to the caller's merchant  else 422 COURSE_PRICE_NOT_OWNED_BY_MERCHANT (only the
 *      id the caller sent is echoed: nothing of the foreign price — amount, course, state — leaks)
 *   3. it is active and its course PUBLISHED else 422 COURSE_PRICE_INACTIVE (details.reason)
 *   4. its type is ONE_TIME                  else 422 COURSE_PRICE_TYPE_NOT_ENABLED_YET
 * Ownership comes before state so a foreign price is never described.
 */
import type { Sequelize } from 'sequelize';
import type { Client } from '@temporalio/client';
import { checkoutStore, type Checkout } from '../../../db/checkouts';
import type { Merchant } from '../../../db/identity';
import { courseStore } from '../../../db/marketplace';
import { chargeExpiryOrInvalid } from '../../charges/issueCharge';
import { issueCheckout } from '../issueCheckout';
import { errors } from '../../errors/apiError';
import { presentP0Checkout } from '../../../core/checkouts/present';
import { parseBillId } from '../../../core/checkouts/urls';
import { MAX_CHARGE_AMOUNT_CENTS } from '../../charges/sellers/schema';
import { p0ErrorCodes } from './envelope';
import type { CreateCheckoutBody, ListCheckoutsQuery } from './schema';

export interface CheckoutIssueDeps {
  sequelize: Sequelize;
  temporal: Client;
  taskQueue: string;
  defaultFee: { bps: number; fixedCents: number };
  defaultChargeTtlSeconds: number;
  publicBaseUrl: string;
  /** NODE_ENV=production: return and completion URLs must be https. */
  production: boolean;
}

/** Return and completion URLs: https only in production (http allowed for local development). */
export function checkUrls(urls: Record<string, string | undefined>, production: boolean): void {
  if (!production) return;
  const fields = Object.entries(urls)
    .filter(([, url]) => url !== undefined && !url.startsWith('https://'))
    .map(([field]) => ({ field, message: 'must be an https URL in production' }));
  if (fields.length) throw errors.validation('request body is invalid', { fields });
}

export class PartnerCheckoutService {
  constructor(private readonly deps: CheckoutIssueDeps) {}

  /** The P0 refusals that need nothing but the body (checked before an idempotency key is claimed). */
  checkP0Rules(body: CreateCheckoutBody): void {
    if (body.frequency !== 'ONE_TIME') throw p0ErrorCodes.frequency(body.frequency);
    if (body.customerId !== undefined && body.customerId !== null) throw p0ErrorCodes.customer();
    if (body.coupons.length > 0) throw p0ErrorCodes.coupons();
    checkUrls({ returnUrl: body.returnUrl, completionUrl: body.completionUrl }, this.deps.production);
  }

  /** Creates checkout `checkoutId` (the idempotency claim's id) for the credential's merchant. */
  async create(
    merchant: Merchant,
    body: CreateCheckoutBody,
    checkoutId: string,
    resuming: boolean,
    idempotencyKey: string,
  ) {
    if (resuming) {
      const existing = await checkoutStore.findCheckout(checkoutId);
      if (existing) return this.present(existing);
    }
    const prices = await courseStore.pricesForCheckout(
      this.deps.sequelize,
      body.items.map((i) => i.id),
    );
    const items = body.items.map((item, index) => {
      const price = prices.get(item.id.toLowerCase());
      if (!price) throw p0ErrorCodes.priceNotFound(index, item.id);
      if (price.merchantId !== merchant.id) throw p0ErrorCodes.priceNotOwned(index, item.id);
      if (!price.active) throw p0ErrorCodes.priceInactive(index, item.id, 'PRICE_INACTIVE', price.courseStatus);
      if (price.courseStatus !== 'PUBLISHED')
        throw p0ErrorCodes.priceInactive(index, item.id, 'COURSE_NOT_PUBLISHED', price.courseStatus);
      if (price.type !== 'ONE_TIME') throw p0ErrorCodes.priceType(index, item.id, price.type);
      return {
        priceId: price.id,
        courseId: price.courseId,
        name: price.courseTitle,
        quantity: item.quantity,
        unitAmountCents: price.amountCents,
      };
    });
    const amountCents = items.reduce((sum, item) => sum + item.unitAmountCents * item.quantity, 0);
    if (amountCents > MAX_CHARGE_AMOUNT_CENTS) {
      throw errors.validation('request body is invalid', {
        fields: [{ field: 'items', message: `the total may be at most ${MAX_CHARGE_AMOUNT_CENTS} cents` }],
      });
    }
    const stored = await issueCheckout(this.deps, merchant, {
      id: checkoutId,
      kind: 'P0',
      amountCents,
      expiresAt: chargeExpiryOrInvalid(body.expiresAt, new Date(), this.deps.defaultChargeTtlSeconds),
      items,
      externalId: body.externalId,
      returnUrl: body.returnUrl,
      completionUrl: body.completionUrl,
      metadata: body.metadata,
      idempotencyKey,
    });
    return this.present(stored);
  }

  async read(merchantId: string, publicId: string) {
    const id = parseBillId(publicId);
    if (!id) throw p0ErrorCodes.invalidId('id');
    const row = await checkoutStore.findCheckoutOfKind(id, 'P0', merchantId);
    if (!row) throw p0ErrorCodes.notFound();
    return this.present(row);
  }

  /**
   * Newest first by (created_at, id); `after` is the last id of the previous page, compared in
   * SQL (microsecond timestamps), so rows created meanwhile land before page one and never shift
   * later pages. A well-formed `after` that names no P0 checkout of this merchant (unknown or
   * another merchant's) → 404 CHECKOUT_NOT_FOUND, as GET /v1/checkouts/{id} answers it: the same
   * answer for both, nothing leaks.
   */
  async list(merchantId: string, query: ListCheckoutsQuery) {
    const after = query.after === undefined ? null : parseBillId(query.after);
    if (query.after !== undefined && !after) throw p0ErrorCodes.invalidId('after');
    const id = query.id === undefined ? null : parseBillId(query.id);
    if (query.id !== undefined && !id) throw p0ErrorCodes.invalidId('id');
    if (after && !(await checkoutStore.isMerchantP0(merchantId, after))) throw p0ErrorCodes.notFound();
    const rows = await checkoutStore.p0CheckoutIds(this.deps.sequelize, {
      merchantId,
      after,
      id,
      externalId: query.externalId,
      status: query.status,
      limit: query.limit + 1,
    });
    const page = rows.slice(0, query.limit);
    const checkouts = await checkoutStore.findCheckouts(page);
    const byId = new Map(checkouts.map((c) => [c.id, c]));
    const items = await checkoutStore.itemsOf(page);
    const data = page.map((r) => presentP0Checkout(byId.get(r)!, items.get(r) ?? [], this.deps.publicBaseUrl));
    const hasMore = rows.length > query.limit;
    return { data, hasMore, next: hasMore ? data[data.length - 1].id : null, before: query.after ?? null };
  }

  async present(row: Checkout) {
    const items = await checkoutStore.itemsOf([row.id]);
    return presentP0Checkout(row, items.get(row.id) ?? [], this.deps.publicBaseUrl);
  }
}

/** The charge's description (the payer's bank app may show it): the course titles, ≤ 255 characters. */

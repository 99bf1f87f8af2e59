/**
 * Seller Pix charges (/sellers/pix, client credentials): created and paid by the sandbox payer
 * (its control route, not the CLI), or created with the shortest allowed expiry and left to expire.
 */
import { createOnce } from '../idempotency';
import {
  endOf,
  keyFor,
  merchantOf,
  payPix,
  waitSellerPaid,
  type OpContext,
  type OpEnd,
  type OpPlan,
  type PaidCharge,
} from '../common';
import type { Credentials } from '../client';

/** The shortest expiry is 1 minute ahead; a little more, so a retried create is still valid. */
const EXPIRE_AFTER_MS = 90_000;

export async function createSellerCharge(
  ctx: OpContext,
  plan: OpPlan,
  creds: Credentials,
  op: string,
  extra: Record<string, unknown> = {},
) {
  const key = keyFor(ctx.fixture, plan);
  return createOnce(
    ctx.client,
    ctx.stats,
    {
      op,
      base: 'api',
      method: 'POST',
      path: '/sellers/pix',
      creds,
      key,
      body: { amountCents: plan.amountCents, description: `carga ${plan.seq}`, externalRef: key, ...extra },
      idOf: (b) => b?.id,
    },
    plan.probe,
  );
}

/** A seller charge created, paid and read PAID; the charge then waits in a pool for a refund or a MED. */
export async function sellerChargePaid(ctx: OpContext, plan: OpPlan): Promise<OpEnd> {
  const m = merchantOf(ctx, plan);
  const created = await createSellerCharge(ctx, plan, m.creds, 'sellerChargePaid.create');
  if (!created.ok) return endOf(created);
  const chargeId = created.body.id as string;
  ctx.stats.made('sellerCharge', chargeId);
  const paid = await payPix(ctx, 'sellerChargePaid.pay', chargeId);
  if (!paid.ok) return endOf(paid);
  if (!(await waitSellerPaid(ctx, 'sellerChargePaid.poll', m.creds, chargeId))) return 'gaveUp';
  ctx.fixture.pools.add({ chargeId, merchantId: m.creds.merchantId, remainingCents: plan.amountCents });
  return 'succeeded';
}

export async function sellerChargeExpired(ctx: OpContext, plan: OpPlan): Promise<OpEnd> {
  const m = merchantOf(ctx, plan);
  const expiresAt = new Date(Date.now() + EXPIRE_AFTER_MS).toISOString();
  const created = await createSellerCharge(ctx, plan, m.creds, 'sellerChargeExpired.create', { expiresAt });
  if (created.ok) ctx.stats.made('expiringCharge', created.body.id);
  return endOf(created);
}

/** A paid charge of the main merchant for an operation that found its pool empty. */
export async function freshPaidCharge(ctx: OpContext, plan: OpPlan): Promise<PaidCharge | OpEnd> {
  const { creds } = ctx.fixture.main;
  const created = await createSellerCharge(ctx, plan, creds, `${plan.kind}.charge`);
  if (!created.ok) return endOf(created);
  const chargeId = created.body.id as string;
  ctx.stats.made('sellerCharge', chargeId);
  const paid = await payPix(ctx, `${plan.kind}.charge.pay`, chargeId);
  if (!paid.ok) return endOf(paid);
  if (!(await waitSellerPaid(ctx, `${plan.kind}.charge.poll`, creds, chargeId))) return 'gaveUp';
  return { chargeId, merchantId: creds.merchantId, remainingCents: plan.amountCents };
}

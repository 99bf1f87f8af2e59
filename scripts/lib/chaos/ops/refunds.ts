/**
 * Refunds (POST /charges/{id}/refund, the owner's bearer token) of paid Pix charges, partial
 * (about a third of what is left) or full (no amount: everything still refundable). Each carries
 * a reason naming its key, so the refund this key made can be found in the charge's refunds[].
 */
import { createOnce } from '../idempotency';
import { endOf, keyFor, type OpContext, type OpEnd, type OpPlan } from '../common';
import { freshPaidCharge } from './sellerCharges';

export async function refund(ctx: OpContext, plan: OpPlan): Promise<OpEnd> {
  const found = ctx.fixture.pools.takeRefundable() ?? (await freshPaidCharge(ctx, plan));
  if (typeof found === 'string') return found;
  const partial = plan.variant < 0.6 && found.remainingCents > 1;
  const amountCents = partial ? Math.max(1, Math.floor(found.remainingCents / 3)) : undefined;
  const key = keyFor(ctx.fixture, plan, 'refund');
  const reason = `carga ${key}`;
  const res = await createOnce(
    ctx.client,
    ctx.stats,
    {
      op: partial ? 'refund.partial' : 'refund.full',
      base: 'api',
      method: 'POST',
      path: `/charges/${found.chargeId}/refund`,
      user: ctx.fixture.user,
      key,
      body: amountCents === undefined ? { reason } : { amountCents, reason },
      idOf: (b) => b?.refunds?.find((r: { reason?: string }) => r.reason === reason)?.id,
    },
    plan.probe,
  );
  if (res.ok) {
    const made = res.body?.refunds?.find((r: { reason?: string }) => r.reason === reason);
    if (made?.id) ctx.stats.made('refund', made.id);
    ctx.fixture.pools.putBackRefundable({
      ...found,
      remainingCents: amountCents === undefined ? 0 : found.remainingCents - amountCents,
    });
  }
  return endOf(res);
}

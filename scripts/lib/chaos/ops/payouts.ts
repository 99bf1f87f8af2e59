/**
 * Payout batches (POST /v1/payouts/batches, signed requests, the key in the body) of the plan's
 * number of items; now and then a few items to keys the sandbox refuses, and a quarter of the
 * batches cancelled at once (409 BATCH_NOT_CANCELLABLE when it already finished is fine).
 */
import { createOnce } from '../idempotency';
import { endOf, keyFor, type OpContext, type OpEnd, type OpPlan } from '../common';

function batchItems(plan: OpPlan) {
  // Keys starting with "invalid" are refused by the sandbox's directory (a failed item).
  const failEvery = plan.variant < 0.5 ? 0 : 50;
  return Array.from({ length: plan.items }, (_, i) => ({
    pixKey: failEvery && i % failEvery === 0 ? `invalid${i}@example.com` : `recebedor${i}@example.com`,
    pixKeyType: 'EMAIL',
    amountCents: plan.itemCents,
    recipientName: `Recebedor ${i}`,
    referenceId: `carga-${plan.seq}-${i}`,
  }));
}

export async function payout(ctx: OpContext, plan: OpPlan): Promise<OpEnd> {
  const creds = ctx.fixture.main.creds;
  const key = keyFor(ctx.fixture, plan);
  const created = await createOnce(
    ctx.client,
    ctx.stats,
    {
      op: 'payout.create',
      base: 'api',
      method: 'POST',
      path: '/v1/payouts/batches',
      creds,
      signed: true,
      key,
      keyHeader: null,
      body: { idempotencyKey: key, description: `carga lote ${plan.seq}`, items: batchItems(plan) },
      idOf: (b) => b?.batchId,
    },
    plan.probe,
  );
  if (!created.ok) return endOf(created);
  const batchId = created.body.batchId as string;
  ctx.stats.made('payoutBatch', batchId);
  if (plan.variant < 0.25) {
    const cancelled = await ctx.client.call({
      op: 'payout.cancel',
      base: 'api',
      method: 'POST',
      path: `/v1/payouts/batches/${batchId}/cancel`,
      creds,
      signed: true,
      body: { reason: 'chaos load: cancelled at once' },
    });
    if (cancelled.ok) ctx.stats.made('cancelledPayoutBatch', batchId);
    if (cancelled.gaveUp) return 'gaveUp';
  }
  return 'succeeded';
}

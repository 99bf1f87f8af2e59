/** Application Pix charges (POST /charges, the signed-in owner's bearer token), created and paid. */
import { createOnce } from '../idempotency';
import { endOf, keyFor, merchantOf, payPix, waitUntil, type OpContext, type OpEnd, type OpPlan } from '../common';

export async function appCharge(ctx: OpContext, plan: OpPlan): Promise<OpEnd> {
  const { user } = ctx.fixture;
  const merchantId = merchantOf(ctx, plan).creds.merchantId;
  const created = await createOnce(
    ctx.client,
    ctx.stats,
    {
      op: 'appCharge.create',
      base: 'api',
      method: 'POST',
      path: '/charges',
      user,
      key: keyFor(ctx.fixture, plan),
      body: {
        merchantId,
        amountCents: plan.amountCents,
        currency: 'BRL',
        method: 'PIX',
        description: `carga app ${plan.seq}`,
      },
      idOf: (b) => b?.id,
    },
    plan.probe,
  );
  if (!created.ok) return endOf(created);
  const chargeId = created.body.id as string;
  ctx.stats.made('appCharge', chargeId);
  const paid = await payPix(ctx, 'appCharge.pay', chargeId);
  if (!paid.ok) return endOf(paid);
  const settled = await waitUntil(
    ctx,
    { op: 'appCharge.poll', base: 'api', method: 'GET', path: `/charges/${chargeId}`, user },
    (b) => b?.status === 'PAID',
  );
  if (!settled) return 'gaveUp';
  ctx.fixture.pools.add({ chargeId, merchantId, remainingCents: plan.amountCents });
  return 'succeeded';
}

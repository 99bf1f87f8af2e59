/** Settlements on demand (POST /settlements, the owner's bearer token) of part of the main merchant's balance. */
import { createOnce } from '../idempotency';
import { endOf, keyFor, type OpContext, type OpEnd, type OpPlan } from '../common';

export async function settlement(ctx: OpContext, plan: OpPlan): Promise<OpEnd> {
  const res = await createOnce(
    ctx.client,
    ctx.stats,
    {
      op: 'settlement.create',
      base: 'api',
      method: 'POST',
      path: '/settlements',
      user: ctx.fixture.user,
      key: keyFor(ctx.fixture, plan),
      // An amount, not "everything": the other operations still need the balance.
      body: { merchantId: ctx.fixture.main.creds.merchantId, amountCents: plan.amountCents },
      idOf: (b) => b?.id,
    },
    plan.probe,
  );
  if (res.ok) ctx.stats.made('settlement', res.body.id);
  return endOf(res);
}

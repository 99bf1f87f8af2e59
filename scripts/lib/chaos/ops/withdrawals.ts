/** Withdrawals (POST /sellers/saques, client credentials) of the main merchant to its own Pix key. */
import { createOnce } from '../idempotency';
import { endOf, keyFor, type OpContext, type OpEnd, type OpPlan } from '../common';

export async function withdrawal(ctx: OpContext, plan: OpPlan): Promise<OpEnd> {
  const res = await createOnce(
    ctx.client,
    ctx.stats,
    {
      op: 'withdrawal.create',
      base: 'api',
      method: 'POST',
      path: '/sellers/saques',
      creds: ctx.fixture.main.creds,
      key: keyFor(ctx.fixture, plan),
      body: { amountCents: plan.amountCents, description: `carga saque ${plan.seq}` },
      idOf: (b) => b?.id,
    },
    plan.probe,
  );
  if (res.ok) ctx.stats.made('withdrawal', res.body.id);
  return endOf(res);
}

/**
 * Checkouts: partner P0 checkouts (POST /v1/checkouts, the partner credential, signed as
 * production requires) paid through the operator CLI (`sandbox pay bill_…`: only the database
 * knows the charge behind a P0 checkout), and checkout sessions (POST /checkout/sessions, the
 * owner's token) paid through the sandbox's control route by the charge id they answer.
 */
import type { CallSpec } from '../client';
import { createOnce } from '../idempotency';
import { endOf, keyFor, payPix, waitUntil, type OpContext, type OpEnd, type OpPlan } from '../common';

export async function checkout(ctx: OpContext, plan: OpPlan): Promise<OpEnd> {
  const { partner, price } = ctx.fixture;
  const key = keyFor(ctx.fixture, plan);
  const created = await createOnce(
    ctx.client,
    ctx.stats,
    {
      op: 'checkout.create',
      base: 'api',
      method: 'POST',
      path: '/v1/checkouts',
      creds: partner,
      signed: true,
      key,
      keyHeader: 'Idempotency-Key',
      body: {
        items: [{ id: price.id, quantity: 1 + Math.floor(plan.variant * 3) }],
        frequency: 'ONE_TIME',
        returnUrl: 'https://parceiro.example.com/carrinho',
        completionUrl: 'https://parceiro.example.com/obrigado',
        externalId: key,
        metadata: { carga: String(plan.seq) },
      },
      idOf: (b) => b?.data?.id,
    },
    plan.probe,
  );
  if (!created.ok) return endOf(created);
  const billId = created.body.data.id as string;
  ctx.stats.made('checkout', billId);
  const read: CallSpec = {
    op: 'checkout.poll',
    base: 'api',
    method: 'GET',
    path: `/v1/checkouts/${billId}`,
    creds: partner,
    signed: true,
  };
  const isPaid = (b: any) => b?.data?.status === 'PAID';
  const paid = await ctx.client.cli('checkout.pay', ['sandbox', 'pay', billId, '--json'], async () => {
    const res = await ctx.client.call(read);
    return res.ok && isPaid(res.body);
  });
  if (!paid.ok) return 'gaveUp';
  const settled = await waitUntil(ctx, read, isPaid);
  return settled ? 'succeeded' : 'gaveUp';
}

export async function checkoutSession(ctx: OpContext, plan: OpPlan): Promise<OpEnd> {
  const { user, main } = ctx.fixture;
  const created = await createOnce(
    ctx.client,
    ctx.stats,
    {
      op: 'checkoutSession.create',
      base: 'api',
      method: 'POST',
      path: '/checkout/sessions',
      user,
      key: keyFor(ctx.fixture, plan),
      body: {
        merchantId: main.creds.merchantId,
        amountCents: plan.amountCents,
        externalRef: keyFor(ctx.fixture, plan),
      },
      idOf: (b) => b?.id,
    },
    plan.probe,
  );
  if (!created.ok) return endOf(created);
  const sessionId = created.body.id as string;
  ctx.stats.made('checkoutSession', sessionId);
  const paid = await payPix(ctx, 'checkoutSession.pay', created.body.chargeId);
  if (!paid.ok) return endOf(paid);
  const settled = await waitUntil(
    ctx,
    { op: 'checkoutSession.poll', base: 'api', method: 'GET', path: `/checkout/sessions/${sessionId}/status`, user },
    (b) => b?.status === 'COMPLETED',
  );
  return settled ? 'succeeded' : 'gaveUp';
}

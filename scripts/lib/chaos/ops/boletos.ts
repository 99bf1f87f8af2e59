/**
 * Boletos (POST /boletos, one item: issued at once), paid through the sandbox's control route by
 * barcode or, now and then, by the hybrid boleto's Pix. Boletos stay out of the refund pools: one
 * paid by barcode is refunded only to a key of its payer.
 */
import { createOnce } from '../idempotency';
import { endOf, keyFor, waitUntil, type OpContext, type OpEnd, type OpPlan } from '../common';

/** A valid CPF (the payer the boleto is registered to). */
const PAYER = { name: 'Pagador Carga', taxId: '52998224725', email: 'pagador@carga.example.com' };

/** Today in Brasília: a due date is payable through that whole day there. */
function todayInBrasilia(): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo' }).format(new Date());
}

export async function boleto(ctx: OpContext, plan: OpPlan): Promise<OpEnd> {
  const { user, main } = ctx.fixture;
  const item = {
    amountCents: plan.amountCents,
    dueDate: todayInBrasilia(),
    payer: PAYER,
    description: `carga boleto ${plan.seq}`,
  };
  const created = await createOnce(
    ctx.client,
    ctx.stats,
    {
      op: 'boleto.create',
      base: 'api',
      method: 'POST',
      path: '/boletos',
      user,
      key: keyFor(ctx.fixture, plan),
      body: { merchantId: main.creds.merchantId, items: [item] },
      idOf: (b) => b?.boletos?.[0]?.id,
    },
    plan.probe,
  );
  if (!created.ok) return endOf(created);
  const chargeId = created.body.boletos[0].id as string;
  ctx.stats.made('boleto', chargeId);
  const paid = await ctx.client.call({
    op: 'boleto.pay',
    base: 'sandbox',
    method: 'POST',
    path: `/sandbox/boletos/${encodeURIComponent(chargeId)}/pay`,
    body: plan.variant < 0.3 ? { via: 'PIX' } : {},
  });
  // A retry whose first attempt paid (its answer lost) is told the boleto is already paid.
  const alreadyPaid = paid.status === 409 && /already paid/.test(String(paid.body?.error?.message));
  if (!paid.ok && !alreadyPaid) return endOf(paid);
  const settled = await waitUntil(
    ctx,
    { op: 'boleto.poll', base: 'api', method: 'GET', path: `/boletos/${chargeId}`, user },
    (b) => b?.status === 'PAID',
  );
  return settled ? 'succeeded' : 'gaveUp';
}

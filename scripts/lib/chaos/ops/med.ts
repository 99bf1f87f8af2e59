/**
 * MED: the sandbox's DICT opens a Pix infraction against a paid charge (its control route), the
 * owner syncs (POST /med/infractions/sync) until the infraction shows OPEN, and answers it
 * (POST /med/infractions/{id}/analysis): ACCEPT (the money goes back to the payer) or REJECT.
 */
import { pspChargeRef } from '../../../../core/pix/apiPixIds';
import { createOnce } from '../idempotency';
import { endOf, keyFor, WAIT_LIMIT_MS, type OpContext, type OpEnd, type OpPlan, type PaidCharge } from '../common';
import { freshPaidCharge } from './sellerCharges';

const SYNC_EVERY_MS = 1_000;

/** Syncs until the infraction against the charge reads OPEN: its id, or how the wait ended. */
async function syncedInfraction(ctx: OpContext, charge: PaidCharge): Promise<{ id: string } | { end: OpEnd }> {
  const { user } = ctx.fixture;
  const deadline = Date.now() + WAIT_LIMIT_MS;
  while (Date.now() < deadline) {
    const synced = await ctx.client.call({
      op: 'med.sync',
      base: 'api',
      method: 'POST',
      path: '/med/infractions/sync',
      user,
      body: { merchantId: charge.merchantId },
    });
    if (!synced.ok) return { end: endOf(synced) };
    const listed = await ctx.client.call({
      op: 'med.list',
      base: 'api',
      method: 'GET',
      user,
      path: `/med/infractions?merchantId=${charge.merchantId}&status=OPEN&limit=100`,
    });
    if (!listed.ok) return { end: endOf(listed) };
    const found = (listed.body?.data ?? []).find((i: { chargeId?: string }) => i.chargeId === charge.chargeId);
    if (found) return { id: found.id as string };
    await new Promise((r) => setTimeout(r, SYNC_EVERY_MS));
  }
  return { end: 'gaveUp' };
}

export async function med(ctx: OpContext, plan: OpPlan): Promise<OpEnd> {
  const charge = ctx.fixture.pools.takeDisputable() ?? (await freshPaidCharge(ctx, plan));
  if (typeof charge === 'string') return charge;
  // Not idempotent at the sandbox: a retry after a lost answer may open a second infraction.
  const opened = await ctx.client.call({
    op: 'med.open',
    base: 'sandbox',
    method: 'POST',
    path: `/sandbox/charges/${encodeURIComponent(pspChargeRef(charge.chargeId))}/infractions`,
    body: plan.variant < 0.5 ? {} : { amountCents: Math.max(1, Math.floor(charge.remainingCents / 2)) },
  });
  if (!opened.ok) return endOf(opened);
  const synced = await syncedInfraction(ctx, charge);
  if ('end' in synced) return synced.end;
  const infractionId = synced.id;
  ctx.stats.made('infraction', infractionId);
  const decision = plan.variant < 0.25 || plan.variant >= 0.75 ? 'ACCEPT' : 'REJECT';
  const answered = await createOnce(
    ctx.client,
    ctx.stats,
    {
      op: `med.${decision.toLowerCase()}`,
      base: 'api',
      method: 'POST',
      path: `/med/infractions/${infractionId}/analysis`,
      user: ctx.fixture.user,
      key: keyFor(ctx.fixture, plan, 'analysis'),
      body: { decision, justification: `carga: ${decision === 'ACCEPT' ? 'fraude confirmada' : 'venda legítima'}` },
      idOf: (b) => (b?.id ? `${b.id}:${b.decision}` : undefined),
    },
    plan.probe,
  );
  return endOf(answered);
}

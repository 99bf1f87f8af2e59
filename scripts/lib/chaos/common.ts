/** What every operation of the load shares: its plan, its context, and small steps (pay, wait). */
import { pspChargeRef } from '../../../core/pix/apiPixIds';
import type { KeyProbe } from './idempotency';
import type { CallResult, CallSpec, Credentials, LoadClient } from './client';
import type { LoadStats } from './stats';
import type { OpKind } from './types';
import type { LoadFixture } from './fixture';

/** Everything an operation decides, drawn at dispatch from the seeded generator. */
export interface OpPlan {
  kind: OpKind;
  seq: number;
  amountCents: number;
  /** On the main merchant, or the second one (seller charges). */
  onSecond: boolean;
  /** A uniform draw an operation reads its variant from (partial or full, cancel or not, ...). */
  variant: number;
  probe: KeyProbe;
  /** Payout batches: how many items, and each item's amount. */
  items: number;
  itemCents: number;
}

export type OpEnd = 'succeeded' | 'refused' | 'gaveUp';

export interface OpContext {
  client: LoadClient;
  stats: LoadStats;
  fixture: LoadFixture;
}

/** A paid Pix charge the load may refund or dispute later. */
export interface PaidCharge {
  chargeId: string;
  merchantId: string;
  remainingCents: number;
}

/** How a step's call ended, as an operation's end. */
export function endOf(result: CallResult): OpEnd {
  return result.ok ? 'succeeded' : result.gaveUp ? 'gaveUp' : 'refused';
}

export function keyFor(fixture: LoadFixture, plan: OpPlan, step = 'create'): string {
  return `${fixture.runTag}-${plan.kind}-${plan.seq}-${step}`;
}

/**
 * The sandbox payer pays a Pix charge of ours (its cob is the charge's txid at the PSP). A retry
 * whose first attempt paid (its answer lost to a killed sandbox) is told the charge is PAID: paid.
 */
export async function payPix(ctx: OpContext, op: string, chargeId: string): Promise<CallResult> {
  const res = await ctx.client.call({
    op,
    base: 'sandbox',
    method: 'POST',
    path: `/sandbox/charges/${encodeURIComponent(pspChargeRef(chargeId))}/pay`,
    body: {},
  });
  const alreadyPaid = res.status === 409 && res.body?.error?.status === 'PAID';
  return alreadyPaid ? { ...res, ok: true } : res;
}

const POLL_EVERY_MS = 500;
/** How long a step waits for the stack to reach a state (a payment settled, an infraction synced). */
export const WAIT_LIMIT_MS = 180_000;

/** Polls `spec` until `done(body)`; false when the limit passed (or a poll was refused or given up). */
export async function waitUntil(
  ctx: OpContext,
  spec: CallSpec,
  done: (body: any) => boolean,
  limitMs = WAIT_LIMIT_MS,
): Promise<boolean> {
  const deadline = Date.now() + limitMs;
  while (Date.now() < deadline) {
    const res = await ctx.client.call(spec);
    if (res.ok && done(res.body)) return true;
    if (!res.ok) return false;
    await new Promise((r) => setTimeout(r, POLL_EVERY_MS));
  }
  return false;
}

/** Waits for a seller charge to read PAID. */
export function waitSellerPaid(ctx: OpContext, op: string, creds: Credentials, chargeId: string): Promise<boolean> {
  return waitUntil(
    ctx,
    { op, base: 'api', method: 'GET', path: `/sellers/pix/${chargeId}`, creds },
    (b) => b?.status === 'PAID',
  );
}

/** The merchant's credentials: the main one's, or the second's. */
export function merchantOf(ctx: OpContext, plan: OpPlan) {
  return plan.onSecond ? ctx.fixture.second : ctx.fixture.main;
}

/**
 * The Efí account's balance (GET /v2/gn/saldo), one sum over the sandbox's stores so nothing is
 * counted twice: the opening balance (option efiOpeningBalanceCents) plus what a test set with
 * POST /sandbox/efi/saldo (an adjustment, journaled), plus every Pix received (charges, cobs,
 * boletos paid by Pix), minus every COMPLETED transfer (a /v1 transfer, a devolução of either
 * API, a send accepted as REALIZADO: debited when accepted, as Efí holds the amount while it is
 * processed), plus what recipients returned of sends.
 */
import type { SandboxContext } from '../context';
import { listReceivedPixPayments } from '../receivedPayments';

export function balanceCents(ctx: SandboxContext, openingCents: number): number {
  return openingCents + ctx.state.efiBalanceAdjustmentCents + flowsCents(ctx);
}

/** Sets the balance to `cents` now: later flows move it from there. */
export function setBalanceCents(ctx: SandboxContext, openingCents: number, cents: number): number {
  const adjustment = cents - openingCents - flowsCents(ctx);
  ctx.state.efiBalanceAdjustmentCents = adjustment;
  ctx.journal.efiBalanceAdjustment(adjustment);
  return balanceCents(ctx, openingCents);
}

function flowsCents(ctx: SandboxContext): number {
  const received = listReceivedPixPayments(ctx).reduce((s, p) => s + p.amountCents, 0);
  let sent = 0;
  for (const t of ctx.state.transfers.values()) if (t.status === 'COMPLETED') sent += t.amountCents;
  let returned = 0;
  for (const send of ctx.state.efiSends.values()) for (const d of send.devolucoes) returned += d.amountCents;
  return received - sent + returned;
}

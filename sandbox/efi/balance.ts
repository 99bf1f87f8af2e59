/**
 * The Efí balance (GET /v2/gn/saldo) is the token's account's (sandbox/balances.ts). A test sets
 * the default account's with POST /sandbox/efi/saldo: an adjustment, journaled.
 */
import type { SandboxContext } from '../context';
import { accountBalanceCents, flowsCents } from '../balances';

/** The default account's balance. */
export function balanceCents(ctx: SandboxContext): number {
  return accountBalanceCents(ctx, ctx.accounts.default);
}

/** Sets the default account's balance to `cents` now: later flows move it from there. */
export function setBalanceCents(ctx: SandboxContext, cents: number): number {
  const account = ctx.accounts.default;
  const adjustment = cents - account.openingBalanceCents - flowsCents(ctx, account);
  ctx.state.efiBalanceAdjustmentCents = adjustment;
  ctx.journal.efiBalanceAdjustment(adjustment);
  return balanceCents(ctx);
}

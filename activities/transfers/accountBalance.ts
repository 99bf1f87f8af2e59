/**
 * Whether the platform's account at the PSP can cover what is about to be sent (Efí: GET
 * /v2/gn/saldo), so a withdrawal or a payout the account cannot cover is refused or parked with
 * PSP_BALANCE_INSUFFICIENT instead of being sent to fail (AM04) one Pix at a time.
 *
 * A hint, never a guarantee: sends running elsewhere spend the same balance, and the PSP's own
 * refusal (AM04 → INSUFFICIENT_FUNDS) still stands behind it. A PSP that does not tell its
 * balance, or does not answer now, blocks nothing: the send goes, and its outcome decides.
 */
import type { Logger } from 'pino';
import { isAccountBalanceProvider } from '../../core/provider';

export async function accountCovers(provider: unknown, cents: number, logger: Logger): Promise<boolean> {
  if (cents <= 0 || !isAccountBalanceProvider(provider)) return true;
  let balance: number | null;
  try {
    balance = await provider.accountBalanceCents();
  } catch (err) {
    logger.warn({ code: (err as { code?: unknown }).code ?? null }, 'PSP balance not read; sending anyway');
    return true;
  }
  if (balance === null || balance >= cents) return true;
  logger.warn({ balanceCents: balance, neededCents: cents }, 'the PSP account cannot cover the transfer now: not sent');
  return false;
}

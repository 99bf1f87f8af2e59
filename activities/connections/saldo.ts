/**
 * An account's saldo read beside the merchant's ledger mirror, as one consistent pair: the ledger
 * is read before and after the saldo, and the saldo again while the ledger moved in between (a
 * payment credited meanwhile), so a difference is never our own race. What the PSP did and the
 * ledger has not recorded yet (a notification in flight) is a real difference at that instant.
 * Used by the daily reconciliation (activities/reconciliations/connection.ts) and the balance
 * reading (./balances.ts).
 */
import { isAccountBalanceProvider, ProviderError, type PixProvider } from '../../core/provider';

/** How often the saldo is read again when the ledger moved while it was read. */
const BALANCE_READS = 3;

export async function saldoBesideMirror<L extends { mirrorCents: number }>(
  provider: PixProvider,
  readLedger: () => Promise<L>,
): Promise<{ saldoCents: number; ledger: L }> {
  const saldoOf = async (): Promise<number> => {
    const cents = isAccountBalanceProvider(provider) ? await provider.accountBalanceCents() : null;
    if (cents === null)
      throw new ProviderError('the PSP tells no balance for this account', 'BALANCE_UNAVAILABLE', false);
    return cents;
  };
  let ledger = await readLedger();
  let saldoCents = await saldoOf();
  for (let read = 1; read < BALANCE_READS; read++) {
    const after = await readLedger();
    if (after.mirrorCents === ledger.mirrorCents) break;
    ledger = after;
    saldoCents = await saldoOf();
  }
  return { saldoCents, ledger };
}

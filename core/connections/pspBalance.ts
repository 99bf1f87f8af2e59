/**
 * A connected merchant's balance is its PSP account's `saldo` (issue 37, Deliver 5): its money is
 * in that account, and our ledger only mirrors what the PSP did. The worker reads the saldo on a
 * Schedule (the API never calls a PSP) and keeps the last reading with the ledger mirror read at
 * the same instant (db/connections/balanceReadingStore.ts); from that pair, here:
 *
 * - what the dashboard shows: available = saldo − reserved − blocked (reserved and blocked are our
 *   holds on money still in that account), the saldo carried forward to now by what the ledger
 *   recorded since the reading: `max(0, ledger available + (saldo − mirror))`, which is exactly
 *   `saldo − reserved − blocked` while nothing moved since. Carried forward, not the raw saldo: a
 *   payout settled after the reading must not reappear as available until the next one.
 * - how much a payout from that account may reserve beyond the ledger's own check: never more than
 *   the account holds. A shortfall (saldo below the mirror) up to the reserved part at the reading
 *   may be sends the PSP had debited and the ledger not yet settled; only beyond that is it real.
 *
 * Before the first reading nothing is invented: the ledger's figures, said to be the ledger's.
 */

/** The ledger's balances of one merchant now. */
export interface LedgerBalances {
  availableCents: number;
  reservedCents: number;
  blockedCents: number;
}

/** One reading of the account at its PSP, with the merchant's ledger mirror at the same instant. */
export interface SaldoReading {
  connectionId: string;
  saldoCents: number;
  /** available + reserved + blocked at the reading. */
  mirrorCents: number;
  /** The reserved part of the mirror at the reading. */
  reservedCents: number;
  readAt: Date;
}

export interface MerchantBalance extends LedgerBalances {
  /** Where availableCents comes from: the ledger (platform model, or no reading yet) or the PSP's saldo. */
  source: 'ledger' | 'psp';
  psp: {
    connectionId: string;
    saldoCents: number;
    readAt: string;
    mirrorCents: number;
    differenceCents: number;
  } | null;
}

/** saldo − mirror at the reading: money at the PSP the ledger does not know of (positive), or missing there (negative). */
export function differenceCents(reading: SaldoReading): number {
  return reading.saldoCents - reading.mirrorCents;
}

/** The balance a merchant is shown: the ledger's, or for a read connected account the PSP's. */
export function merchantBalance(ledger: LedgerBalances, reading: SaldoReading | null): MerchantBalance {
  if (!reading) return { ...ledger, source: 'ledger', psp: null };
  const difference = differenceCents(reading);
  return {
    availableCents: Math.max(0, ledger.availableCents + difference),
    reservedCents: ledger.reservedCents,
    blockedCents: ledger.blockedCents,
    source: 'psp',
    psp: {
      connectionId: reading.connectionId,
      saldoCents: reading.saldoCents,
      readAt: reading.readAt.toISOString(),
      mirrorCents: reading.mirrorCents,
      differenceCents: difference,
    },
  };
}

/**
 * Whether the account can fund `cents` more of money out, by its last reading (the ledger's own
 * available is checked apart, by the ledger writer): the ledger's available less any shortfall of
 * the saldo that money in flight at the reading does not explain.
 */
export function pspCanFund(ledgerAvailableCents: number, reading: SaldoReading, cents: number): boolean {
  const shortfall = Math.min(0, differenceCents(reading) + reading.reservedCents);
  return cents <= ledgerAvailableCents + shortfall;
}

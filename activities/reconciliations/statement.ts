import type { ProviderStatement, StatementProvider } from '../../core/provider';
import type { ReconciliationCounts, ReconciliationDifference } from '../../workflows/reconciliations/types';

/** Our references are UUIDs: a statement line with another reference is not one of our transfers. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type DayRange = { from: string; to: string };

/** What a run found: counts by kind, and each difference. */
export type Report = { counts: ReconciliationCounts; differences: ReconciliationDifference[] };

/**
 * Whose books and which account: a merchant's (null: every merchant, a platform-wide run) at the
 * platform's account (connectionId null) or at its own PSP connection.
 */
export type Scope = { merchantId: string | null; connectionId: string | null };

export const emptyReport = (): Report => ({
  counts: { matched: 0, missingInLedger: 0, missingAtProvider: 0, amountMismatch: 0, healed: 0 },
  differences: [],
});

/** Brasília has had no daylight saving since 2019: a day starts at 03:00Z. */
export function brasiliaDayRange(from: string, to: string): DayRange {
  const end = new Date(`${to}T00:00:00-03:00`);
  end.setUTCDate(end.getUTCDate() + 1);
  return { from: new Date(`${from}T00:00:00-03:00`).toISOString(), to: end.toISOString() };
}

/** The provider's statement for `range`. */
export function statementOf(statements: StatementProvider | undefined, range: DayRange): Promise<ProviderStatement> {
  if (!statements) throw new Error('the provider client serves no statement');
  return statements.getStatement(range);
}

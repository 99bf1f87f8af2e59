/**
 * The ledger invariant, row by row: what the bench (scripts/lib/ledgerInvariant.ts) and the
 * operator's audit (cli/audit/ledger.ts) check, in one place. Read-only; answers the rows that
 * break a rule (none when it holds), never throws for them.
 *  - every transaction's postings sum to zero, and every transaction has postings;
 *  - no account that may not go negative is below zero;
 *  - each account's maintained balance equals the sum of its postings.
 */
import { QueryTypes, type Sequelize } from 'sequelize';

export interface LedgerViolations {
  /** Sum of every posting: 0 when the ledger balances as a whole. */
  totalCents: number;
  unbalanced: { transactionId: string; sumCents: number }[];
  withoutPostings: { transactionId: string; movementKey: string }[];
  negative: { code: string; balanceCents: number }[];
  drift: { code: string; balanceCents: number; postedCents: number }[];
  /** How many transactions and accounts were examined. */
  examined: { transactions: number; accounts: number };
}

export async function ledgerViolations(sequelize: Sequelize): Promise<LedgerViolations> {
  const select = <T extends object>(sql: string) => sequelize.query<T>(sql, { type: QueryTypes.SELECT });
  const [[total], unbalanced, withoutPostings, negative, drift, [counts]] = await Promise.all([
    select<{ sum: string }>('SELECT COALESCE(SUM(amount_cents), 0) AS sum FROM ledger_postings'),
    select<{ transaction_id: string; sum: string }>(
      `SELECT transaction_id, SUM(amount_cents) AS sum FROM ledger_postings
        GROUP BY transaction_id HAVING SUM(amount_cents) <> 0 ORDER BY transaction_id`,
    ),
    select<{ id: string; movement_key: string }>(
      `SELECT t.id, t.movement_key FROM ledger_transactions t
        WHERE NOT EXISTS (SELECT 1 FROM ledger_postings p WHERE p.transaction_id = t.id) ORDER BY t.id`,
    ),
    select<{ code: string; balance_cents: string }>(
      'SELECT code, balance_cents FROM ledger_accounts WHERE NOT allow_negative AND balance_cents < 0 ORDER BY code',
    ),
    select<{ code: string; balance_cents: string; posted: string }>(
      `SELECT a.code, a.balance_cents, COALESCE(SUM(p.amount_cents), 0) AS posted
         FROM ledger_accounts a LEFT JOIN ledger_postings p ON p.account_id = a.id
        GROUP BY a.id, a.code, a.balance_cents HAVING a.balance_cents <> COALESCE(SUM(p.amount_cents), 0)
        ORDER BY a.code`,
    ),
    select<{ transactions: string; accounts: string }>(
      'SELECT (SELECT count(*) FROM ledger_transactions) AS transactions, (SELECT count(*) FROM ledger_accounts) AS accounts',
    ),
  ]);
  return {
    totalCents: Number(total.sum),
    unbalanced: unbalanced.map((r) => ({ transactionId: r.transaction_id, sumCents: Number(r.sum) })),
    withoutPostings: withoutPostings.map((r) => ({ transactionId: r.id, movementKey: r.movement_key })),
    negative: negative.map((r) => ({ code: r.code, balanceCents: Number(r.balance_cents) })),
    drift: drift.map((r) => ({ code: r.code, balanceCents: Number(r.balance_cents), postedCents: Number(r.posted) })),
    examined: { transactions: Number(counts.transactions), accounts: Number(counts.accounts) },
  };
}

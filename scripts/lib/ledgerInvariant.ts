/**
 * The ledger invariant as test/support/ledger.ts asserts it after every money scenario, for the
 * bench: every posting sums to zero overall and per transaction, no account that may not go
 * negative is, and each account's maintained balance equals the sum of its postings. Answers the
 * broken rules (empty when it holds), never throws for them.
 */
import { QueryTypes, type Sequelize } from 'sequelize';

export async function ledgerProblems(sequelize: Sequelize): Promise<string[]> {
  const problems: string[] = [];
  const [total] = await sequelize.query<{ sum: string | null }>(
    'SELECT COALESCE(SUM(amount_cents), 0) AS sum FROM ledger_postings',
    { type: QueryTypes.SELECT },
  );
  if (Number(total.sum) !== 0) problems.push(`postings sum to ${total.sum}, not 0`);
  const unbalanced = await sequelize.query(
    'SELECT transaction_id FROM ledger_postings GROUP BY transaction_id HAVING SUM(amount_cents) <> 0',
    { type: QueryTypes.SELECT },
  );
  if (unbalanced.length) problems.push(`${unbalanced.length} unbalanced transaction(s)`);
  const negative = await sequelize.query(
    'SELECT code FROM ledger_accounts WHERE NOT allow_negative AND balance_cents < 0',
    { type: QueryTypes.SELECT },
  );
  if (negative.length) problems.push(`${negative.length} account(s) negative that may not be`);
  const drift = await sequelize.query(
    `SELECT a.code FROM ledger_accounts a LEFT JOIN ledger_postings p ON p.account_id = a.id
     GROUP BY a.id, a.code, a.balance_cents HAVING a.balance_cents <> COALESCE(SUM(p.amount_cents), 0)`,
    { type: QueryTypes.SELECT },
  );
  if (drift.length) problems.push(`${drift.length} account balance(s) differ from their postings`);
  return problems;
}

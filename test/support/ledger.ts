/** The ledger invariant, asserted after every money scenario. */
import { QueryTypes, type Sequelize } from 'sequelize';

export async function assertLedgerInvariant(sequelize: Sequelize): Promise<void> {
  const [total] = await sequelize.query<{ sum: string | null }>(
    'SELECT COALESCE(SUM(amount_cents), 0) AS sum FROM ledger_postings',
    {
      type: QueryTypes.SELECT,
    },
  );
  expect(Number(total.sum)).toBe(0);
  const unbalanced = await sequelize.query(
    'SELECT transaction_id FROM ledger_postings GROUP BY transaction_id HAVING SUM(amount_cents) <> 0',
    { type: QueryTypes.SELECT },
  );
  expect(unbalanced).toEqual([]);
  const negative = await sequelize.query(
    'SELECT code, balance_cents FROM ledger_accounts WHERE NOT allow_negative AND balance_cents < 0',
    {
      type: QueryTypes.SELECT,
    },
  );
  expect(negative).toEqual([]);
  // The maintained balance column must equal the sum of the account's postings.
  const drift = await sequelize.query(
    `SELECT a.code FROM ledger_accounts a LEFT JOIN ledger_postings p ON p.account_id = a.id
     GROUP BY a.id, a.code, a.balance_cents HAVING a.balance_cents <> COALESCE(SUM(p.amount_cents), 0)`,
    { type: QueryTypes.SELECT },
  );
  expect(drift).toEqual([]);
}

export async function balance(sequelize: Sequelize, code: string): Promise<number> {
  const rows = await sequelize.query<{ balance_cents: string }>(
    'SELECT balance_cents FROM ledger_accounts WHERE code = :code',
    {
      replacements: { code },
      type: QueryTypes.SELECT,
    },
  );
  return rows.length ? Number(rows[0].balance_cents) : 0;
}

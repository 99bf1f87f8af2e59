/** The ledger invariant, asserted after every money scenario. */
import { QueryTypes, type Sequelize } from 'sequelize';
import { ledgerViolations } from '../../db/ledger/invariant';

export async function assertLedgerInvariant(sequelize: Sequelize): Promise<void> {
  // The same rules, read by the same queries, as the bench and the operator's audit.
  const v = await ledgerViolations(sequelize);
  expect(v.totalCents).toBe(0);
  expect(v.unbalanced).toEqual([]);
  expect(v.negative).toEqual([]);
  // The maintained balance column must equal the sum of the account's postings.
  expect(v.drift).toEqual([]);
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

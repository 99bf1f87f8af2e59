/**
 * The ledger invariant as test/support/ledger.ts asserts it after every money scenario, for the
 * bench: db/ledger/invariant.ts's rows (the operator's audit reads the same), summed up as the
 * broken rules (empty when it holds), never thrown.
 */
import type { Sequelize } from 'sequelize';
import { ledgerViolations } from '../../db/ledger/invariant';

export async function ledgerProblems(sequelize: Sequelize): Promise<string[]> {
  const v = await ledgerViolations(sequelize);
  const problems: string[] = [];
  if (v.totalCents !== 0) problems.push(`postings sum to ${v.totalCents}, not 0`);
  if (v.unbalanced.length) problems.push(`${v.unbalanced.length} unbalanced transaction(s)`);
  if (v.negative.length) problems.push(`${v.negative.length} account(s) negative that may not be`);
  if (v.drift.length) problems.push(`${v.drift.length} account balance(s) differ from their postings`);
  return problems;
}

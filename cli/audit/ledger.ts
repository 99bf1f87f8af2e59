/**
 * Check 6: the ledger balances to the cent (db/ledger/invariant.ts, the rules the bench and
 * every money test check): each transaction's postings sum to zero and it has some, no account
 * that may not go negative is below zero, and every account's balance (each merchant's available
 * among them) equals the sum of its postings.
 */
import type { Sequelize } from 'sequelize';
import { ledgerViolations } from '../../db/ledger/invariant';
import type { AuditCheck, Discrepancy } from './types';

export async function auditLedger(deps: { sequelize: Sequelize }): Promise<AuditCheck> {
  const v = await ledgerViolations(deps.sequelize);
  const discrepancies: Discrepancy[] = [
    ...v.unbalanced.map((t) => ({
      row: `ledger_transaction:${t.transactionId}`,
      problem: `postings sum to ${t.sumCents}, not 0`,
    })),
    ...v.withoutPostings.map((t) => ({
      row: `ledger_transaction:${t.transactionId}`,
      problem: `${t.movementKey} has no postings`,
    })),
    ...v.negative.map((a) => ({ row: `ledger_account:${a.code}`, problem: `balance ${a.balanceCents} below zero` })),
    ...v.drift.map((a) => ({
      row: `ledger_account:${a.code}`,
      problem: `balance ${a.balanceCents} but its postings sum to ${a.postedCents}`,
    })),
  ];
  // Each unbalanced transaction already names where the whole is off.
  if (v.totalCents !== 0 && v.unbalanced.length === 0)
    discrepancies.push({ row: 'ledger_postings', problem: `all postings sum to ${v.totalCents}, not 0` });
  return {
    check: 'ledger',
    examined: v.examined.transactions + v.examined.accounts,
    discrepancies,
    notes: [`${v.examined.transactions} transactions, ${v.examined.accounts} accounts`],
  };
}

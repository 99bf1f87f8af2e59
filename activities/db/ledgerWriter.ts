/**
 * Writes one balanced ledger entry inside the caller's DB transaction, exactly once per
 * movement key. Balances are updated in account-code order so concurrent writers lock rows in
 * the same order (no deadlocks); the CHECK constraint on ledger_accounts refuses any update that
 * would take a non-external account below zero, whatever the concurrency.
 */
import crypto from 'node:crypto';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { describeAccount } from '../../core/ledger/accounts';
import { assertBalanced, type LedgerEntry } from '../../core/ledger/postings';

export class InsufficientBalanceError extends Error {
  constructor(readonly accountCode: string) {
    super(`insufficient balance in ${accountCode}`);
    this.name = 'InsufficientBalanceError';
  }
}

export async function writeLedgerEntry(
  sequelize: Sequelize,
  entry: LedgerEntry,
  transaction: Transaction,
): Promise<{ applied: boolean; transactionId: string | null }> {
  assertBalanced(entry.postings);
  const inserted = await sequelize.query<{ id: string }>(
    `INSERT INTO ledger_transactions (id, movement_key, kind, reference_type, reference_id)
     VALUES (:id, :movementKey, :kind, :referenceType, :referenceId)
     ON CONFLICT (movement_key) DO NOTHING RETURNING id`,
    {
      replacements: { id: crypto.randomUUID(), movementKey: entry.movementKey, kind: entry.kind, referenceType: entry.referenceType, referenceId: entry.referenceId },
      type: QueryTypes.SELECT,
      transaction,
    },
  );
  if (inserted.length === 0) return { applied: false, transactionId: null };
  const transactionId = inserted[0].id;

  const ordered = [...entry.postings].sort((a, b) => (a.accountCode < b.accountCode ? -1 : a.accountCode > b.accountCode ? 1 : 0));
  for (const posting of ordered) {
    const spec = describeAccount(posting.accountCode);
    await sequelize.query(
      `INSERT INTO ledger_accounts (code, merchant_id, kind, allow_negative) VALUES (:code, :merchantId, :kind, :allowNegative)
       ON CONFLICT (code) DO NOTHING`,
      { replacements: { code: spec.code, merchantId: spec.merchantId, kind: spec.kind, allowNegative: spec.allowNegative }, transaction },
    );
    let account: { id: string }[];
    try {
      account = await sequelize.query<{ id: string }>(
        `UPDATE ledger_accounts SET balance_cents = balance_cents + :amount WHERE code = :code RETURNING id`,
        { replacements: { amount: posting.amountCents, code: spec.code }, type: QueryTypes.SELECT, transaction },
      );
    } catch (err) {
      if (isCheckViolation(err)) throw new InsufficientBalanceError(spec.code);
      throw err;
    }
    await sequelize.query(
      `INSERT INTO ledger_postings (transaction_id, account_id, amount_cents) VALUES (:transactionId, :accountId, :amount)`,
      { replacements: { transactionId, accountId: account[0].id, amount: posting.amountCents }, transaction },
    );
  }
  return { applied: true, transactionId };
}

function isCheckViolation(err: unknown): boolean {
  const original = (err as { original?: { code?: string; constraint?: string } }).original;
  return original?.code === '23514' && original.constraint === 'ledger_balance_not_negative';
}

export async function balanceOf(sequelize: Sequelize, accountCode: string, transaction?: Transaction): Promise<number> {
  const rows = await sequelize.query<{ balance_cents: string }>(`SELECT balance_cents FROM ledger_accounts WHERE code = :code`, {
    replacements: { code: accountCode },
    transaction,
    type: QueryTypes.SELECT,
  });
  return rows.length ? Number(rows[0].balance_cents) : 0;
}

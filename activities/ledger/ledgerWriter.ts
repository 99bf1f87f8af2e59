/**
 * Writes balanced ledger entries inside the caller's DB transaction, each exactly once per
 * movement key. Many entries go in a few statements (a payout slice settles hundreds of items
 * in one transaction): every entry keeps its own ledger transaction and postings, while each
 * account's balance is updated once with the sum of its applied postings, so concurrent slices
 * hold the hot rows (provider clearing, platform fees) for one UPDATE each, not one per item.
 * Balances are updated in account-code order so concurrent writers lock rows in the same order
 * (no deadlocks); the CHECK constraint on ledger_accounts refuses any update that would take a
 * non-external account below zero, whatever the concurrency. Credits to a merchant that owes for a
 * Pix infraction pay that debt first, in the same transaction (medRecovery.ts).
 */
import crypto from 'node:crypto';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { describeAccount } from '../../core/ledger/accounts';
import { assertBalanced, type LedgerEntry } from '../../core/ledger/postings';
import { lockMedDebtors, recoverMedDebts } from './medRecovery';

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
  const [applied] = await writeLedgerEntries(sequelize, [entry], transaction);
  return applied ?? { applied: false, transactionId: null };
}

/** One answer per entry, in order: applied, or already written under its movement key. */
export async function writeLedgerEntries(
  sequelize: Sequelize,
  entries: LedgerEntry[],
  transaction: Transaction,
): Promise<Array<{ applied: boolean; transactionId: string | null }>> {
  if (entries.length === 0) return [];
  for (const entry of entries) assertBalanced(entry.postings);
  const keys = new Set<string>();
  for (const entry of entries) {
    if (keys.has(entry.movementKey)) throw new Error(`movement key ${entry.movementKey} appears twice in one write`);
    keys.add(entry.movementKey);
  }
  const appliedIds = await insertTransactions(sequelize, entries, transaction);
  const applied = entries.filter((e) => appliedIds.has(e.movementKey));
  if (applied.length === 0) return entries.map(() => ({ applied: false, transactionId: null }));
  // A merchant that owes for a MED claim pays it first from every credit, in this transaction;
  // its cases are locked before any balance, in the order MED's own steps lock them.
  const debtors = await lockMedDebtors(sequelize, applied, transaction);
  const accountIds = await applyToBalances(sequelize, applied, transaction);
  await insertPostings(sequelize, applied, appliedIds, accountIds, transaction);
  await recoverMedDebts(sequelize, debtors, transaction, (recoveries) =>
    writeLedgerEntries(sequelize, recoveries, transaction),
  );
  return entries.map((e) => ({
    applied: appliedIds.has(e.movementKey),
    transactionId: appliedIds.get(e.movementKey) ?? null,
  }));
}

/** The ledger transaction of each entry not yet written under its movement key: its id, by movement key. */
async function insertTransactions(
  sequelize: Sequelize,
  entries: LedgerEntry[],
  transaction: Transaction,
): Promise<Map<string, string>> {
  const ids = entries.map(() => crypto.randomUUID());
  const inserted = await sequelize.query<{ id: string; movement_key: string }>(
    `INSERT INTO ledger_transactions (id, movement_key, kind, reference_type, reference_id)
     SELECT * FROM unnest(ARRAY[:ids]::uuid[], ARRAY[:movementKeys]::text[], ARRAY[:kinds]::text[], ARRAY[:referenceTypes]::text[], ARRAY[:referenceIds]::text[])
     ON CONFLICT (movement_key) DO NOTHING RETURNING id, movement_key`,
    {
      replacements: {
        ids,
        movementKeys: entries.map((e) => e.movementKey),
        kinds: entries.map((e) => e.kind),
        referenceTypes: entries.map((e) => e.referenceType),
        referenceIds: entries.map((e) => e.referenceId),
      },
      type: QueryTypes.SELECT,
      transaction,
    },
  );
  return new Map(inserted.map((r) => [r.movement_key, r.id]));
}

/**
 * Each account once, in code order, with the sum of its postings (created first if new); a
 * balance the CHECK refuses is an InsufficientBalanceError. Answers each account's id by code.
 */
async function applyToBalances(
  sequelize: Sequelize,
  applied: LedgerEntry[],
  transaction: Transaction,
): Promise<Map<string, string>> {
  const sums = new Map<string, number>();
  for (const entry of applied)
    for (const p of entry.postings) sums.set(p.accountCode, (sums.get(p.accountCode) ?? 0) + p.amountCents);
  const codes = [...sums.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const specs = codes.map((code) => describeAccount(code));
  await sequelize.query(
    `INSERT INTO ledger_accounts (code, merchant_id, kind, allow_negative)
     SELECT * FROM unnest(ARRAY[:codes]::text[], ARRAY[:merchantIds]::uuid[], ARRAY[:kinds]::text[], ARRAY[:allowNegative]::boolean[])
     ON CONFLICT (code) DO NOTHING`,
    {
      replacements: {
        codes: specs.map((s) => s.code),
        merchantIds: specs.map((s) => s.merchantId),
        kinds: specs.map((s) => s.kind),
        allowNegative: specs.map((s) => s.allowNegative),
      },
      transaction,
    },
  );
  const accountIds = new Map<string, string>();
  for (const code of codes) {
    let account: { id: string }[];
    try {
      account = await sequelize.query<{ id: string }>(
        `UPDATE ledger_accounts SET balance_cents = balance_cents + :amount WHERE code = :code RETURNING id`,
        { replacements: { amount: sums.get(code), code }, type: QueryTypes.SELECT, transaction },
      );
    } catch (err) {
      if (isCheckViolation(err)) throw new InsufficientBalanceError(code);
      throw err;
    }
    accountIds.set(code, account[0].id);
  }
  return accountIds;
}

async function insertPostings(
  sequelize: Sequelize,
  applied: LedgerEntry[],
  transactionIds: Map<string, string>,
  accountIds: Map<string, string>,
  transaction: Transaction,
): Promise<void> {
  const postings = applied.flatMap((entry) =>
    entry.postings.map((p) => ({
      transactionId: transactionIds.get(entry.movementKey) as string,
      accountId: accountIds.get(p.accountCode) as string,
      amount: p.amountCents,
    })),
  );
  await sequelize.query(
    `INSERT INTO ledger_postings (transaction_id, account_id, amount_cents)
     SELECT * FROM unnest(ARRAY[:transactionIds]::uuid[], ARRAY[:accountIds]::bigint[], ARRAY[:amounts]::bigint[])`,
    {
      replacements: {
        transactionIds: postings.map((p) => p.transactionId),
        accountIds: postings.map((p) => p.accountId),
        amounts: postings.map((p) => p.amount),
      },
      transaction,
    },
  );
}

function isCheckViolation(err: unknown): boolean {
  const original = (err as { original?: { code?: string; constraint?: string } }).original;
  return original?.code === '23514' && original.constraint === 'ledger_balance_not_negative';
}

export async function balanceOf(sequelize: Sequelize, accountCode: string, transaction?: Transaction): Promise<number> {
  const rows = await sequelize.query<{ balance_cents: string }>(
    `SELECT balance_cents FROM ledger_accounts WHERE code = :code`,
    {
      replacements: { code: accountCode },
      transaction,
      type: QueryTypes.SELECT,
    },
  );
  return rows.length ? Number(rows[0].balance_cents) : 0;
}

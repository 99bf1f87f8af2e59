/**
 * Writes balanced ledger entries inside the caller's DB transaction, each exactly once per
 * movement key. Any number of entries take three statements (a payout slice settles hundreds of
 * items in one transaction): the MED debtors' read, the new accounts, then keys, balances and
 * postings in one (applyEntries). Every entry keeps its own ledger transaction and postings, while
 * each account's balance is updated once with the sum of its applied postings, so concurrent
 * slices hold the hot rows (provider clearing, platform fees) for one update each, not one per item.
 * Balances are updated in account-code order so concurrent writers lock rows in the same order
 * (no deadlocks); the CHECK constraint on ledger_accounts refuses any update that would take a
 * non-external account below zero, whatever the concurrency. Credits to a merchant that owes for a
 * Pix infraction pay that debt first, in the same transaction (medRecovery.ts).
 */
import crypto from 'node:crypto';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { describeAccount } from '../../core/ledger/accounts';
import { assertBalanced, type LedgerEntry } from '../../core/ledger/postings';
import { appliedOnly, lockMedDebtors, recoverMedDebts } from './medRecovery';

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
  // A merchant that owes for a MED claim pays it first from every credit, in this transaction;
  // its cases are locked before any balance, in the order MED's own steps lock them (before the
  // movement keys are known to be new: a replayed entry's credit only costs the owed read).
  const debtors = await lockMedDebtors(sequelize, entries, transaction);
  const appliedIds = await applyEntries(sequelize, entries, transaction);
  if (appliedIds.size === 0) return entries.map(() => ({ applied: false, transactionId: null }));
  await recoverMedDebts(sequelize, appliedOnly(debtors, new Set(appliedIds.keys())), transaction, (recoveries) =>
    writeLedgerEntries(sequelize, recoveries, transaction),
  );
  return entries.map((e) => ({
    applied: appliedIds.has(e.movementKey),
    transactionId: appliedIds.get(e.movementKey) ?? null,
  }));
}

/**
 * The entries in two statements (a paid charge's settle took 6 besides the owed read: the keys,
 * the accounts, one UPDATE per account, the postings). First every account they name is created
 * if new, so that the second statement only ever updates accounts. The second writes each entry's
 * ledger transaction unless its movement key is already written (ON CONFLICT DO NOTHING: a
 * concurrent writer of the same key makes this one wait for its commit, then write nothing); adds
 * to each account of the applied entries, once, in code order, the sum of their postings; and
 * writes their postings, in order. Only entries whose key this statement wrote move a balance.
 *
 * The balances are added through an upsert that always conflicts (the accounts exist): its
 * proposed row carries balance 0, because PostgreSQL checks the CHECK on the proposed row before
 * it looks for the conflict, and the DO UPDATE adds the sum, the CHECK then judging the account's
 * real row (allow_negative included). A row the upsert inserted instead (xmax 0: impossible after
 * the first statement) would have lost its sum: it is refused. A balance the CHECK refuses is an
 * InsufficientBalanceError. Answers each applied entry's ledger transaction id, by movement key.
 */
async function applyEntries(
  sequelize: Sequelize,
  entries: LedgerEntry[],
  transaction: Transaction,
): Promise<Map<string, string>> {
  const lines = entries.flatMap((e) => e.postings.map((p) => ({ key: e.movementKey, ...p })));
  const codes = [...new Set(lines.map((l) => l.accountCode))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const specs = codes.map((code) => describeAccount(code));
  const accountReplacements = {
    codes,
    merchantIds: specs.map((s) => s.merchantId),
    accountKinds: specs.map((s) => s.kind),
    allowNegative: specs.map((s) => s.allowNegative),
  };
  await sequelize.query(
    `INSERT INTO ledger_accounts (code, merchant_id, kind, allow_negative)
     SELECT * FROM unnest(ARRAY[:codes]::text[], ARRAY[:merchantIds]::uuid[], ARRAY[:accountKinds]::text[], ARRAY[:allowNegative]::boolean[])
     ON CONFLICT (code) DO NOTHING`,
    { replacements: accountReplacements, transaction },
  );
  let rows: { id: string | null; movement_key: string | null; inserted_account: string | null }[];
  try {
    rows = await sequelize.query(
      `WITH tx AS (
         INSERT INTO ledger_transactions (id, movement_key, kind, reference_type, reference_id)
         SELECT * FROM unnest(ARRAY[:ids]::uuid[], ARRAY[:movementKeys]::text[], ARRAY[:kinds]::text[], ARRAY[:referenceTypes]::text[], ARRAY[:referenceIds]::text[])
         ON CONFLICT (movement_key) DO NOTHING RETURNING id, movement_key
       ), lines AS (
         SELECT * FROM unnest(ARRAY[:lineKeys]::text[], ARRAY[:lineCodes]::text[], ARRAY[:lineAmounts]::bigint[])
           WITH ORDINALITY AS l(movement_key, code, amount_cents, n)
       ), sums AS (
         SELECT l.code, sum(l.amount_cents)::bigint AS cents FROM lines l JOIN tx USING (movement_key) GROUP BY l.code
       ), accounts AS (
         INSERT INTO ledger_accounts AS a (code, merchant_id, kind, allow_negative, balance_cents)
         SELECT s.code, spec.merchant_id, spec.kind, spec.allow_negative, 0
           FROM sums s
           JOIN unnest(ARRAY[:codes]::text[], ARRAY[:merchantIds]::uuid[], ARRAY[:accountKinds]::text[], ARRAY[:allowNegative]::boolean[])
             AS spec(code, merchant_id, kind, allow_negative) USING (code)
          ORDER BY s.code
         ON CONFLICT (code) DO UPDATE
           SET balance_cents = a.balance_cents + (SELECT s.cents FROM sums s WHERE s.code = EXCLUDED.code)
         RETURNING a.id, a.code, a.xmax = 0 AS inserted
       ), postings AS (
         INSERT INTO ledger_postings (transaction_id, account_id, amount_cents)
         SELECT tx.id, accounts.id, l.amount_cents FROM lines l JOIN tx USING (movement_key) JOIN accounts USING (code) ORDER BY l.n
       )
       SELECT id, movement_key, NULL AS inserted_account FROM tx
       UNION ALL
       SELECT NULL, NULL, code FROM accounts WHERE inserted`,
      {
        replacements: {
          ids: entries.map(() => crypto.randomUUID()),
          movementKeys: entries.map((e) => e.movementKey),
          kinds: entries.map((e) => e.kind),
          referenceTypes: entries.map((e) => e.referenceType),
          referenceIds: entries.map((e) => e.referenceId),
          lineKeys: lines.map((l) => l.key),
          lineCodes: lines.map((l) => l.accountCode),
          lineAmounts: lines.map((l) => l.amountCents),
          ...accountReplacements,
        },
        type: QueryTypes.SELECT,
        transaction,
      },
    );
  } catch (err) {
    if (isCheckViolation(err)) throw new InsufficientBalanceError(refusedAccount(err, codes));
    throw err;
  }
  const lost = rows.find((r) => r.inserted_account !== null);
  if (lost)
    throw new Error(`ledger account ${lost.inserted_account} was created by the balance upsert: its sum is lost`);
  return new Map(rows.map((r) => [r.movement_key as string, r.id as string]));
}

/**
 * The account whose balance the CHECK refused: the one of ours the failing row names
 * (PostgreSQL's detail, "Failing row contains (id, code, …)").
 */
function refusedAccount(err: unknown, codes: string[]): string {
  const detail = (err as { original?: { detail?: string } }).original?.detail ?? '';
  return codes.find((code) => detail.includes(`, ${code},`)) ?? codes.find((code) => detail.includes(code)) ?? codes[0];
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

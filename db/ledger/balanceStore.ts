/**
 * Reads of ledger balances for code outside the money core: whether a merchant still holds money,
 * and the balances the dashboard and the metrics show. Read-only: the ledger tables are written
 * only by the one ledger writer (activities/ledger/ledgerWriter.ts), inside its transactions.
 */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { accounts } from '../../core/ledger/accounts';

/** Which of these merchants hold money (a non-zero available, reserved or blocked balance). */
export async function merchantsHoldingMoney(
  sequelize: Sequelize,
  merchantIds: string[],
  transaction?: Transaction,
): Promise<string[]> {
  if (merchantIds.length === 0) return [];
  const holding = await sequelize.query<{ merchant_id: string }>(
    `SELECT DISTINCT split_part(code, ':', 2) AS merchant_id FROM ledger_accounts
      WHERE balance_cents <> 0 AND code IN (:codes)`,
    {
      type: QueryTypes.SELECT,
      transaction,
      replacements: {
        codes: merchantIds.flatMap((id) => [
          `merchant:${id}:available`,
          `merchant:${id}:reserved`,
          `merchant:${id}:blocked`,
        ]),
      },
    },
  );
  return holding.map((h) => h.merchant_id);
}

/** The account's balance from its postings made before `cutoff`. */
export async function balanceBefore(sequelize: Sequelize, code: string, cutoff: Date): Promise<number> {
  const [row] = await sequelize.query<{ sum: string | null }>(
    `SELECT COALESCE(SUM(p.amount_cents), 0) AS sum FROM ledger_postings p JOIN ledger_accounts a ON a.id = p.account_id
     WHERE a.code = :code AND p.created_at < :cutoff`,
    { replacements: { code, cutoff }, type: QueryTypes.SELECT },
  );
  return Number(row?.sum ?? 0);
}

/**
 * The account's balance under FOR UPDATE, in the caller's transaction (the MED block decides how
 * much to block on it before the ledger writer moves it); null when the account does not exist.
 */
export async function lockedBalance(
  sequelize: Sequelize,
  code: string,
  transaction: Transaction,
): Promise<number | null> {
  const [acct] = await sequelize.query<{ balance_cents: string }>(
    `SELECT balance_cents FROM ledger_accounts WHERE code = :code FOR UPDATE`,
    {
      replacements: { code },
      type: QueryTypes.SELECT,
      transaction,
    },
  );
  return acct ? Number(acct.balance_cents) : null;
}

/** The balances of these accounts, by code (an account that does not exist is absent). */
export async function balancesOf(
  sequelize: Sequelize,
  codes: string[],
  transaction?: Transaction,
): Promise<Map<string, number>> {
  const balances = await sequelize.query<{ code: string; balance_cents: string }>(
    `SELECT code, balance_cents FROM ledger_accounts WHERE code IN (:codes)`,
    { replacements: { codes }, type: QueryTypes.SELECT, transaction },
  );
  return new Map(balances.map((b) => [b.code, Number(b.balance_cents ?? 0)]));
}

/** A merchant's available, reserved and blocked balances (0 for an account not opened yet), read together. */
export async function merchantBalances(
  sequelize: Sequelize,
  merchantId: string,
  transaction?: Transaction,
): Promise<{ availableCents: number; reservedCents: number; blockedCents: number }> {
  const codes = [
    accounts.merchantAvailable(merchantId),
    accounts.merchantReserved(merchantId),
    accounts.merchantBlocked(merchantId),
  ];
  const balances = await balancesOf(sequelize, codes, transaction);
  const [availableCents, reservedCents, blockedCents] = codes.map((code) => balances.get(code) ?? 0);
  return { availableCents, reservedCents, blockedCents };
}

/** Sum of balances and number of accounts per account kind, over the whole platform (metrics). */
export async function totalsByKind(
  sequelize: Sequelize,
): Promise<{ kind: string; balanceCents: number; accounts: number }[]> {
  const rows = await sequelize.query<{ kind: string; balance: string; n: string }>(
    'SELECT kind, sum(balance_cents) AS balance, count(*) AS n FROM ledger_accounts GROUP BY kind',
    { type: QueryTypes.SELECT },
  );
  return rows.map((r) => ({ kind: r.kind, balanceCents: Number(r.balance), accounts: Number(r.n) }));
}

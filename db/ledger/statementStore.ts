/**
 * A merchant's balances explained line by line (issue 38, GET /dashboard/balance/lines): the
 * postings of its ledger accounts, newest first, each with its ledger transaction's kind and
 * reference (the movement vocabulary of core/ledger/postings.ts, as the ledger writer stored it)
 * and the account's balance after it. Read-only.
 *
 * A posting's balance after is the account's balance less every posting of that account made
 * after it. Per account, posting ids follow the order the writer applied them: it inserts the
 * postings after updating the account's balance row, under that row's lock until commit. So the
 * page and the balances come from one snapshot (REPEATABLE READ), the page reads each account's
 * newest postings before the cursor through (account_id, id) (migration 0043), and only the
 * postings newer than the page are summed (an index-only scan).
 */
import { QueryTypes, Transaction, type Sequelize } from 'sequelize';

export const MERCHANT_ACCOUNTS = ['available', 'reserved', 'blocked', 'owed'] as const;
export type MerchantAccount = (typeof MERCHANT_ACCOUNTS)[number];

const codeOf = (merchantId: string, account: MerchantAccount) => `merchant:${merchantId}:${account}`;

export interface StatementLine {
  postingId: string;
  transactionId: string;
  createdAt: Date;
  account: MerchantAccount;
  amountCents: number;
  balanceAfterCents: number;
  kind: string;
  referenceType: string;
  referenceId: string;
}

export interface Statement {
  /** Every account's balance now (0 for one never opened), from the page's snapshot. */
  balances: Record<MerchantAccount, number>;
  /** Newest first; at most `limit`. */
  lines: StatementLine[];
  /** More lines are older than the last one. */
  hasMore: boolean;
}

interface LineRow {
  id: string;
  transaction_id: string;
  created_at: Date;
  code: string;
  amount_cents: string;
  balance_after: string;
  kind: string;
  reference_type: string;
  reference_id: string;
}

/**
 * The newest `limit` postings of the merchant's accounts (all four, or `account`) older than
 * `beforeId` (the previous page's last line), with the balances they explain.
 */
export function merchantStatement(
  sequelize: Sequelize,
  q: { merchantId: string; account?: MerchantAccount; limit: number; beforeId?: string },
): Promise<Statement> {
  const accounts = q.account ? [q.account] : [...MERCHANT_ACCOUNTS];
  const codes = accounts.map((a) => codeOf(q.merchantId, a));
  return sequelize.transaction(
    { isolationLevel: Transaction.ISOLATION_LEVELS.REPEATABLE_READ },
    async (transaction) => {
      const held = await sequelize.query<{ code: string; balance_cents: string }>(
        `SELECT code, balance_cents FROM ledger_accounts WHERE code IN (:codes)`,
        { replacements: { codes }, type: QueryTypes.SELECT, transaction },
      );
      const byCode = new Map(held.map((h) => [h.code, Number(h.balance_cents)]));
      const balances = Object.fromEntries(
        MERCHANT_ACCOUNTS.map((a) => [a, byCode.get(codeOf(q.merchantId, a)) ?? 0]),
      ) as Record<MerchantAccount, number>;
      if (held.length === 0) return { balances, lines: [], hasMore: false };
      const rows = await sequelize.query<LineRow>(
        `WITH acct AS (SELECT id, code, balance_cents FROM ledger_accounts WHERE code IN (:codes)),
         page AS (
           SELECT x.* FROM acct, LATERAL (
             SELECT p.id, p.account_id, p.transaction_id, p.amount_cents, p.created_at FROM ledger_postings p
              WHERE p.account_id = acct.id AND (CAST(:beforeId AS bigint) IS NULL OR p.id < CAST(:beforeId AS bigint))
              ORDER BY p.id DESC LIMIT :fetch
           ) x
           ORDER BY x.id DESC LIMIT :fetch
         ),
         newer AS (
           SELECT q.account_id, SUM(q.amount_cents) AS cents FROM ledger_postings q
            WHERE q.account_id IN (SELECT id FROM acct) AND q.id > (SELECT max(id) FROM page)
            GROUP BY q.account_id
         )
         SELECT page.id, page.transaction_id, page.created_at, acct.code, page.amount_cents,
                acct.balance_cents - COALESCE(newer.cents, 0)
                  - COALESCE(SUM(page.amount_cents) OVER (PARTITION BY page.account_id ORDER BY page.id DESC
                      ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS balance_after,
                t.kind, t.reference_type, t.reference_id
           FROM page JOIN acct ON acct.id = page.account_id
           JOIN ledger_transactions t ON t.id = page.transaction_id
           LEFT JOIN newer ON newer.account_id = page.account_id
          ORDER BY page.id DESC`,
        {
          replacements: { codes, beforeId: q.beforeId ?? null, fetch: q.limit + 1 },
          type: QueryTypes.SELECT,
          transaction,
        },
      );
      const lines = rows.slice(0, q.limit).map((r) => ({
        postingId: String(r.id),
        transactionId: r.transaction_id,
        createdAt: new Date(r.created_at),
        account: r.code.slice(r.code.lastIndexOf(':') + 1) as MerchantAccount,
        amountCents: Number(r.amount_cents),
        balanceAfterCents: Number(r.balance_after),
        kind: r.kind,
        referenceType: r.reference_type,
        referenceId: r.reference_id,
      }));
      return { balances, lines, hasMore: rows.length > q.limit };
    },
  );
}

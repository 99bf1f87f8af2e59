/**
 * A merchant's balances explained line by line (issue 38, GET /dashboard/balance/lines): each
 * account's postings newest first from a cursor, and the sum of those newer than a page (its
 * balance after each line), read through (account_id, id) with the amount in the index (an
 * index-only scan). It serves every lookup by account_id, so the index on account_id alone goes:
 * one index less to maintain on the ledger's hottest table.
 */
import type { Migration } from '../migrator';

export const ledgerPostingsByAccount: Migration = {
  name: '0043_ledger_postings_by_account',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE INDEX ledger_postings_account_id ON ledger_postings (account_id, id) INCLUDE (amount_cents);
      DROP INDEX ledger_postings_account;
    `);
  },
};

/**
 * The dashboard's transactions filtered by method (GET /dashboard/transactions?method=, with or
 * without status): their total was counted by reading every one of the merchant's charges of that
 * status from the table to test its method (no index holds method), 300 ms for a merchant of
 * 134,000 charges and seconds for one of 1.3 million (issue 40's bench, 10,000,000 charges of
 * 1,000 merchants). With method in an index and status beside it, the count reads this index only
 * (an index-only scan) and the page reads it newest first, as charges_merchant_page does for the
 * unfiltered list.
 */
import type { Migration } from '../migrator';

export const chargesByMethod: Migration = {
  name: '0046_charges_by_method',
  async up({ context: sequelize }) {
    await sequelize.query(
      `CREATE INDEX charges_merchant_method_page ON charges (merchant_id, method, created_at DESC, id DESC) INCLUDE (status)`,
    );
  },
};

/**
 * The withdrawals table: the way to read it, and its writer for code outside the withdrawal
 * activities (activities/withdrawals/withdrawals.ts still writes its rows itself while the
 * outbound-transfer choreography is being rewritten).
 */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { Withdrawal } from './withdrawal';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function findWithdrawal(id: string, transaction?: Transaction): Promise<Withdrawal | null> {
  return Withdrawal.findByPk(id, { transaction });
}

/** A merchant's withdrawals, newest first, one page, with the total. */
export function listWithdrawals(merchantId: string, page: { limit: number; offset: number }) {
  return Withdrawal.findAndCountAll({
    where: { merchantId },
    order: [
      ['createdAt', 'DESC'],
      ['id', 'DESC'],
    ],
    limit: page.limit,
    offset: page.offset,
  });
}

/**
 * A merchant's withdrawal by the id a client sends: the one look-up of GET /sellers/saques/{id}
 * and GET /v1/receipts/withdrawals/{id}, so the two routes find exactly the same withdrawals.
 * The spec lets a withdrawal id be any 1 to 120 characters (api/withdrawals/schema.ts); ours
 * are UUIDs, so any other string finds nothing (404), and is never handed to PostgreSQL as a
 * uuid (which would fail the query: a 500). Another merchant's withdrawal is never found.
 */
export async function findMerchantWithdrawal(merchantId: string, id: string): Promise<Withdrawal | null> {
  return UUID.test(id) ? Withdrawal.findOne({ where: { id, merchantId } }) : null;
}

/** Every withdrawal of the platform counted by status (metrics). */
export async function countByStatus(sequelize: Sequelize): Promise<{ status: string; count: number }[]> {
  const rows = await sequelize.query<{ status: string; n: string }>(
    'SELECT status, count(*) AS n FROM withdrawals GROUP BY status',
    { type: QueryTypes.SELECT },
  );
  return rows.map((r) => ({ status: r.status, count: Number(r.n) }));
}

/**
 * A merchant's withdrawal by the id a client sends: the one look-up of GET /sellers/saques/{id}
 * and GET /v1/receipts/withdrawals/{id}, so the two routes find exactly the same withdrawals.
 * The spec lets a withdrawal id be any 1 to 120 characters (api/withdrawals/schema.ts); ours
 * are UUIDs, so any other string finds nothing (404), and is never handed to PostgreSQL as a
 * uuid (which would fail the query: a 500). Another merchant's withdrawal is never found.
 */
import { Withdrawal } from '../models';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function findMerchantWithdrawal(merchantId: string, id: string): Promise<Withdrawal | null> {
  return UUID.test(id) ? Withdrawal.findOne({ where: { id, merchantId } }) : null;
}

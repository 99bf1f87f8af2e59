/**
 * The refunds table: the way to read it, and its writer for code outside the refund activities
 * (activities/refunds/refunds.ts still writes its rows itself while the outbound-transfer
 * choreography is being rewritten).
 */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { Refund } from './refund';

/** The refunds of these charges, oldest first. */
export function refundsOfCharges(chargeIds: string[]): Promise<Refund[]> {
  return Refund.findAll({
    where: { chargeId: chargeIds },
    order: [
      ['createdAt', 'ASC'],
      ['id', 'ASC'],
    ],
  });
}

/**
 * Sums of a charge's refunds, read where the decision is made: `committed` (every refund not
 * FAILED: what can no longer be refunded) and `succeeded` (money that went back).
 */
export async function refundTotal(
  sequelize: Sequelize,
  chargeId: string,
  which: 'committed' | 'succeeded',
  transaction?: Transaction,
): Promise<number> {
  const condition = which === 'committed' ? `status <> 'FAILED'` : `status = 'SUCCEEDED'`;
  const [{ total }] = await sequelize.query<{ total: string }>(
    `SELECT COALESCE(SUM(amount_cents), 0) AS total FROM refunds WHERE charge_id = :chargeId AND ${condition}`,
    {
      replacements: { chargeId },
      type: QueryTypes.SELECT,
      transaction,
    },
  );
  return Number(total);
}

/** The charge's SUCCEEDED refunds, in the order they settled. */
export function succeededRefundsOf(chargeId: string): Promise<Refund[]> {
  return Refund.findAll({
    where: { chargeId, status: 'SUCCEEDED' },
    order: [
      ['settledAt', 'ASC'],
      ['createdAt', 'ASC'],
    ],
  });
}

/**
 * Sums of a charge's refunds, read where the decision is made: `committed` (every refund not
 * FAILED: what can no longer be refunded) and `succeeded` (money that went back).
 */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';

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

/**
 * The refunds table: its one writer (the refund activities go through it) and the way to read it.
 */
import { QueryTypes, type CreationAttributes, type InferAttributes, type Sequelize, type Transaction } from 'sequelize';
import { insertOnce } from '../insertOnce';
import { Refund } from './refund';

export function findRefund(id: string, transaction?: Transaction): Promise<Refund | null> {
  return Refund.findByPk(id, { transaction });
}

/** The refund's row under FOR UPDATE: settle and release decide on what no other writer changes meanwhile. */
export function lockRefund(id: string, transaction: Transaction): Promise<Refund | null> {
  return Refund.findByPk(id, { transaction, lock: transaction.LOCK.UPDATE });
}

/** The charge's refund made under this idempotency key (unique: refunds_one_per_key), in the caller's transaction. */
export function refundOfKey(
  chargeId: string,
  idempotencyKey: string,
  transaction: Transaction,
): Promise<Refund | null> {
  return Refund.findOne({ where: { chargeId, idempotencyKey }, transaction });
}

/** Stores a reserved refund, in the caller's transaction. */
export function createRefund(attributes: CreationAttributes<Refund>, transaction: Transaction): Promise<Refund> {
  return Refund.create(attributes, { transaction });
}

/** Stores the refund unless one with its id exists; answers the row and whether it is new. */
export async function createRefundOnce(
  attributes: CreationAttributes<Refund>,
): Promise<{ refund: Refund; created: boolean }> {
  const { row, created } = await insertOnce(Refund, attributes, { id: attributes.id });
  return { refund: row, created };
}

/** A change of the refund's row (its outcome, or why it is unconfirmed), in the caller's transaction if any. */
export async function updateRefund(
  refund: Refund,
  changes: Partial<InferAttributes<Refund>>,
  transaction?: Transaction,
): Promise<void> {
  await refund.update(changes, { transaction });
}

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

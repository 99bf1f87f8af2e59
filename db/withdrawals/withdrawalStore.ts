/**
 * The withdrawals table: the one module that writes it (the withdrawal activities' reserve,
 * settle, release and tombstone; the transfer repair's reads), and the one its readers go through.
 */
import { QueryTypes, type CreationAttributes, type Sequelize, type Transaction } from 'sequelize';
import { Withdrawal } from './withdrawal';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function findWithdrawal(id: string, transaction?: Transaction): Promise<Withdrawal | null> {
  return Withdrawal.findByPk(id, { transaction });
}

/** The withdrawal's row under FOR UPDATE in `transaction`, or null when there is none. */
export function lockWithdrawal(id: string, transaction: Transaction): Promise<Withdrawal | null> {
  return Withdrawal.findByPk(id, { transaction, lock: transaction.LOCK.UPDATE });
}

/** The merchant's withdrawal made under this idempotency key (unique: withdrawals_one_per_key), in `transaction`. */
export function withdrawalOfKey(
  merchantId: string,
  idempotencyKey: string,
  transaction: Transaction,
): Promise<Withdrawal | null> {
  return Withdrawal.findOne({ where: { merchantId, idempotencyKey }, transaction });
}

/** Inserts a withdrawal row (a reservation, or a reserve's FAILED tombstone) in `transaction`. */
export function createWithdrawal(
  attributes: CreationAttributes<Withdrawal>,
  transaction: Transaction,
): Promise<Withdrawal> {
  return Withdrawal.create(attributes, { transaction });
}

export type WithdrawalChanges = Partial<
  Pick<
    Withdrawal,
    | 'status'
    | 'processedAt'
    | 'partnerTxId'
    | 'providerTransferId'
    | 'providerEndToEndId'
    | 'failureCode'
    | 'failureReason'
  >
>;

/** Moves a (locked) withdrawal row: its settle or its release, in `transaction`. */
export async function updateWithdrawal(
  withdrawal: Withdrawal,
  changes: WithdrawalChanges,
  transaction: Transaction,
): Promise<void> {
  await withdrawal.update(changes, { transaction });
}

/** The ids of withdrawals still PROCESSING, least recently updated first, at most `limit`. */
export async function openWithdrawalIds(limit: number): Promise<string[]> {
  const open = await Withdrawal.findAll({
    attributes: ['id'],
    where: { status: 'PROCESSING' },
    order: [['updatedAt', 'ASC']],
    limit,
  });
  return open.map((w) => w.id);
}

/** Whether the withdrawal was last updated more than `grace` (a PostgreSQL interval) ago; false when there is none. */
export async function gracePassed(sequelize: Sequelize, withdrawalId: string, grace: string): Promise<boolean> {
  const [row] = await sequelize.query<{ grace_passed: boolean }>(
    `SELECT updated_at < now() - CAST(:grace AS interval) AS grace_passed FROM withdrawals WHERE id = :withdrawalId`,
    { replacements: { withdrawalId, grace }, type: QueryTypes.SELECT },
  );
  return Boolean(row?.grace_passed);
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

/**
 * A FAILED withdrawal's reason made precise (the PSP's reason code came in its notice, after the
 * release by its record): only from the generic `from` code, so a precise one is never replaced.
 */
export async function refineFailure(
  sequelize: Sequelize,
  id: string,
  failure: { from: string; code: string; reason: string },
): Promise<boolean> {
  const [, affected] = await sequelize.query(
    `UPDATE withdrawals SET failure_code = :code, failure_reason = :reason, updated_at = now()
      WHERE id = :id AND status = 'FAILED' AND failure_code = :from`,
    { replacements: { id, ...failure }, type: QueryTypes.UPDATE },
  );
  return Number(affected) > 0;
}

/**
 * The settlements and settlement_schedules tables. A settlement row is a label on a withdrawal
 * (its state is the withdrawal's, joined here, never copied); it is inserted here, in the
 * withdrawal's reservation transaction (activities/withdrawals/reserve.ts).
 * The schedule rows (one per merchant) are written here only.
 */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { BeneficiarySnapshot, WithdrawalStatus } from '../../core/withdrawals/rules';
import type { SettlementFrequency } from '../../workflows/settlements/types';
import type { SettlementTag } from '../../workflows/withdrawals/types';

// --- settlement_schedules -----------------------------------------------------------------

export interface ScheduleConfig {
  merchantId: string;
  frequency: SettlementFrequency;
  minimumAmountCents: number;
  updatedAt: Date;
}

export async function findSchedule(sequelize: Sequelize, merchantId: string): Promise<ScheduleConfig | null> {
  const [row] = await sequelize.query<{
    merchant_id: string;
    frequency: SettlementFrequency;
    minimum_amount_cents: string;
    updated_at: Date;
  }>(
    `SELECT merchant_id, frequency, minimum_amount_cents, updated_at FROM settlement_schedules WHERE merchant_id = :merchantId`,
    {
      replacements: { merchantId },
      type: QueryTypes.SELECT,
    },
  );
  if (!row) return null;
  return {
    merchantId: row.merchant_id,
    frequency: row.frequency,
    minimumAmountCents: Number(row.minimum_amount_cents),
    updatedAt: new Date(row.updated_at),
  };
}

/** Creates or replaces the merchant's schedule row. */
export async function putSchedule(
  sequelize: Sequelize,
  schedule: { merchantId: string; frequency: SettlementFrequency; minimumAmountCents: number; updatedBy: string },
): Promise<void> {
  await sequelize.query(
    `INSERT INTO settlement_schedules (merchant_id, frequency, minimum_amount_cents, updated_by) VALUES (:merchantId, :frequency, :minimum, :userId)
     ON CONFLICT (merchant_id) DO UPDATE SET frequency = EXCLUDED.frequency, minimum_amount_cents = EXCLUDED.minimum_amount_cents, updated_by = EXCLUDED.updated_by, updated_at = now()`,
    {
      replacements: {
        merchantId: schedule.merchantId,
        frequency: schedule.frequency,
        minimum: schedule.minimumAmountCents,
        userId: schedule.updatedBy,
      },
    },
  );
}

export async function deleteSchedule(sequelize: Sequelize, merchantId: string): Promise<void> {
  await sequelize.query(`DELETE FROM settlement_schedules WHERE merchant_id = :merchantId`, {
    replacements: { merchantId },
  });
}

// --- settlements ----------------------------------------------------------------------------

/** The settlement label of a withdrawal, in the reservation's transaction (commits with it or not at all). */
/**
 * Inserts the settlement row, bound to the idempotency key it was requested under (null for a
 * scheduled one; unique per merchant: settlements_one_per_key).
 */
export async function insertSettlement(
  sequelize: Sequelize,
  tag: SettlementTag,
  withdrawal: { id: string; merchantId: string },
  idempotencyKey: string | null,
  transaction: Transaction,
): Promise<void> {
  await sequelize.query(
    `INSERT INTO settlements (id, merchant_id, withdrawal_id, trigger, requested_by, schedule_run_id, schedule_frequency, idempotency_key)
     VALUES (:id, :merchantId, :withdrawalId, :trigger, :requestedBy, :runId, :frequency, :idempotencyKey)`,
    {
      replacements: {
        idempotencyKey,
        id: tag.settlementId,
        merchantId: withdrawal.merchantId,
        withdrawalId: withdrawal.id,
        trigger: tag.trigger,
        requestedBy: tag.requestedBy,
        runId: tag.scheduleRunId,
        frequency: tag.scheduleFrequency,
      },
      transaction,
    },
  );
}

/** The merchant's settlement made under this idempotency key, in `transaction`: its id and its withdrawal's. */
export async function settlementOfKey(
  sequelize: Sequelize,
  merchantId: string,
  idempotencyKey: string,
  transaction: Transaction,
): Promise<{ id: string; withdrawalId: string } | null> {
  const [row] = await sequelize.query<{ id: string; withdrawal_id: string }>(
    `SELECT id, withdrawal_id FROM settlements WHERE merchant_id = :merchantId AND idempotency_key = :idempotencyKey`,
    { replacements: { merchantId, idempotencyKey }, type: QueryTypes.SELECT, transaction },
  );
  return row ? { id: row.id, withdrawalId: row.withdrawal_id } : null;
}

/** A settlement with the state of its withdrawal. */
export interface Settlement {
  id: string;
  merchantId: string;
  withdrawalId: string;
  trigger: 'ON_DEMAND' | 'SCHEDULED';
  requestedBy: string | null;
  scheduleFrequency: SettlementFrequency | null;
  createdAt: Date;
  status: WithdrawalStatus;
  amountCents: number;
  feeCents: number;
  totalDebitedCents: number;
  providerTransferId: string | null;
  providerEndToEndId: string | null;
  failureCode: string | null;
  failureReason: string | null;
  beneficiarySnapshot: BeneficiarySnapshot | null;
  processedAt: Date | null;
}

interface Row {
  id: string;
  merchant_id: string;
  withdrawal_id: string;
  trigger: Settlement['trigger'];
  requested_by: string | null;
  schedule_frequency: SettlementFrequency | null;
  created_at: Date;
  status: WithdrawalStatus;
  amount_cents: string;
  fee_cents: string;
  total_debited_cents: string;
  provider_transfer_id: string | null;
  provider_end_to_end_id: string | null;
  failure_code: string | null;
  failure_reason: string | null;
  beneficiary_snapshot: BeneficiarySnapshot | null;
  processed_at: Date | null;
}

function settlementOf(r: Row): Settlement {
  return {
    id: r.id,
    merchantId: r.merchant_id,
    withdrawalId: r.withdrawal_id,
    trigger: r.trigger,
    requestedBy: r.requested_by,
    scheduleFrequency: r.schedule_frequency,
    createdAt: new Date(r.created_at),
    status: r.status,
    amountCents: Number(r.amount_cents),
    feeCents: Number(r.fee_cents),
    totalDebitedCents: Number(r.total_debited_cents),
    providerTransferId: r.provider_transfer_id,
    providerEndToEndId: r.provider_end_to_end_id,
    failureCode: r.failure_code,
    failureReason: r.failure_reason,
    beneficiarySnapshot: r.beneficiary_snapshot,
    processedAt: r.processed_at ? new Date(r.processed_at) : null,
  };
}

// State comes from the withdrawal row only: the settlement row is a label, never a copy.
const SELECT = `SELECT s.id, s.merchant_id, s.withdrawal_id, s.trigger, s.requested_by, s.schedule_frequency, s.created_at,
  w.status, w.amount_cents, w.fee_cents, w.total_debited_cents, w.provider_transfer_id, w.provider_end_to_end_id,
  w.failure_code, w.failure_reason, w.beneficiary_snapshot, w.processed_at
  FROM settlements s JOIN withdrawals w ON w.id = s.withdrawal_id`;

export async function findSettlement(sequelize: Sequelize, id: string): Promise<Settlement | null> {
  const [row] = await sequelize.query<Row>(`${SELECT} WHERE s.id = :id`, {
    replacements: { id },
    type: QueryTypes.SELECT,
  });
  return row ? settlementOf(row) : null;
}

/** A merchant's settlements, newest first, one page, with the total; `status` is the withdrawal's. */
export async function listSettlements(
  sequelize: Sequelize,
  q: { merchantId: string; status?: string; limit: number; offset: number },
): Promise<{ settlements: Settlement[]; total: number }> {
  const statusFilter = q.status ? 'AND w.status = :status' : '';
  const rows = await sequelize.query<Row & { total: string }>(
    `${SELECT.replace('FROM settlements', ', count(*) OVER () AS total FROM settlements')} WHERE s.merchant_id = :merchantId ${statusFilter}
     ORDER BY s.created_at DESC, s.id DESC LIMIT :limit OFFSET :offset`,
    {
      replacements: { merchantId: q.merchantId, status: q.status ?? null, limit: q.limit, offset: q.offset },
      type: QueryTypes.SELECT,
    },
  );
  const total = rows.length ? Number(rows[0].total) : await countSettlements(sequelize, q.merchantId, q.status);
  return { settlements: rows.map(settlementOf), total };
}

async function countSettlements(sequelize: Sequelize, merchantId: string, status: string | undefined) {
  const [row] = await sequelize.query<{ n: string }>(
    `SELECT count(*) AS n FROM settlements s JOIN withdrawals w ON w.id = s.withdrawal_id WHERE s.merchant_id = :merchantId ${status ? 'AND w.status = :status' : ''}`,
    { replacements: { merchantId, status: status ?? null }, type: QueryTypes.SELECT },
  );
  return Number(row.n);
}

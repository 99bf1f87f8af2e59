/**
 * /settlements: a settlement moves a merchant's available balance to its own registered Pix key.
 * The money moves through the withdrawal machinery (withdrawalLifecycle, one transfer path): the
 * API starts that workflow with Update-With-Start and answers once the reservation — and, in the
 * same DB transaction, the settlement row — is committed. Owner, admin and finance act and read;
 * another merchant's settlement is 404 SETTLEMENT_NOT_FOUND, like one that does not exist.
 */
import type { Client } from '@temporalio/client';
import { QueryTypes, type Sequelize } from 'sequelize';
import { maskPixKey } from '../../core/masking';
import { publicTransferReference } from '../../core/withdrawals/present';
import type { BeneficiarySnapshot } from '../../core/withdrawals/rules';
import { Merchant, MerchantMember } from '../../db/models';
import type { MemberRole } from '../../db/identity/merchantMember';
import { requestWithdrawalUpdate, withdrawalWorkflowId } from '../../workflows/withdrawals/definitions';
import type { WithdrawalInput } from '../../workflows/withdrawals/types';
import { defaultMerchantOf, requireRole, roleErrors } from '../dashboard/roles';
import { ApiError, errors } from '../errors/apiError';
import { mapRequestError, pixKeyNotRegistered } from '../withdrawals/service';
import { updateWithStartOrJoin } from '../temporal/updateWithStart';
import type { CreateSettlementBody, ListSettlementsQuery, SettlementView } from './schema';

export const SETTLEMENT_ROLES: readonly MemberRole[] = ['owner', 'admin', 'finance'];

export const settlementErrors = {
  notFound: () => new ApiError(404, 'SETTLEMENT_NOT_FOUND', 'settlement not found'),
};

interface Row {
  id: string;
  merchant_id: string;
  withdrawal_id: string;
  trigger: SettlementView['trigger'];
  requested_by: string | null;
  schedule_frequency: SettlementView['scheduleFrequency'];
  created_at: Date;
  status: SettlementView['status'];
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

// State comes from the withdrawal row only: the settlement row is a label, never a copy.
const SELECT = `SELECT s.id, s.merchant_id, s.withdrawal_id, s.trigger, s.requested_by, s.schedule_frequency, s.created_at,
  w.status, w.amount_cents, w.fee_cents, w.total_debited_cents, w.provider_transfer_id, w.provider_end_to_end_id,
  w.failure_code, w.failure_reason, w.beneficiary_snapshot, w.processed_at
  FROM settlements s JOIN withdrawals w ON w.id = s.withdrawal_id`;

export class SettlementService {
  constructor(private readonly deps: { sequelize: Sequelize; temporal: Client; taskQueue: string }) {}

  /** Fast refusals before a second factor is spent or a workflow started; the reservation checks again under lock. */
  async precheck(merchantId: string): Promise<void> {
    const merchant = await Merchant.findByPk(merchantId);
    if (!merchant || !merchant.active) throw errors.merchantIdRequired();
    if (merchant.withdrawalsFrozen) throw errors.withdrawalFrozen();
    if (!merchant.pixKey) throw pixKeyNotRegistered();
  }

  /** Requests settlement `settlementId` (the idempotency claim's resource id) and answers it once reserved. */
  async create(
    userId: string,
    body: CreateSettlementBody,
    settlementId: string,
    resuming: boolean,
    idempotencyKey: string,
  ): Promise<SettlementView> {
    if (resuming) {
      // A previous holder of this key died: its settlement may already exist.
      const existing = await this.row(settlementId);
      if (existing) return view(existing);
    }
    // One id for both: the settlement is the withdrawal's label, and a resumed key finds either.
    const withdrawalId = settlementId;
    const input: WithdrawalInput = {
      withdrawalId,
      merchantId: body.merchantId,
      amountCents: body.amountCents ?? 0,
      allAvailable: body.amountCents === undefined,
      description: 'Settlement (on demand)',
      idempotencyKey,
      userId,
      settlement: {
        settlementId,
        trigger: 'ON_DEMAND',
        requestedBy: userId,
        scheduleRunId: null,
        scheduleFrequency: null,
      },
    };
    try {
      await updateWithStartOrJoin(this.deps.temporal, requestWithdrawalUpdate, {
        workflowType: 'withdrawalLifecycle',
        workflowId: withdrawalWorkflowId(withdrawalId),
        taskQueue: this.deps.taskQueue,
        args: [input],
        merchantId: body.merchantId,
        initialStatus: 'RESERVING',
      });
    } catch (err) {
      throw mapRequestError(err);
    }
    const row = await this.row(settlementId);
    if (!row) throw errors.unavailable('the settlement request was interrupted; retry with the same idempotency key');
    return view(row);
  }

  async list(userId: string, query: ListSettlementsQuery) {
    const merchantId = query.merchantId ?? (await defaultMerchantOf(userId));
    await requireRole(userId, merchantId, SETTLEMENT_ROLES);
    const statusFilter = query.status ? 'AND w.status = :status' : '';
    const rows = await this.deps.sequelize.query<Row & { total: string }>(
      `${SELECT.replace('FROM settlements', ', count(*) OVER () AS total FROM settlements')} WHERE s.merchant_id = :merchantId ${statusFilter}
       ORDER BY s.created_at DESC, s.id DESC LIMIT :limit OFFSET :offset`,
      {
        replacements: { merchantId, status: query.status ?? null, limit: query.limit, offset: query.offset },
        type: QueryTypes.SELECT,
      },
    );
    const total = rows.length ? Number(rows[0].total) : await this.count(merchantId, query.status);
    return {
      data: rows.map(view),
      pagination: { total, limit: query.limit, offset: query.offset, hasMore: query.offset + rows.length < total },
    };
  }

  async read(userId: string, id: string): Promise<SettlementView> {
    const row = await this.row(id);
    if (!row) throw settlementErrors.notFound();
    const member = await MerchantMember.findOne({ where: { userId, merchantId: row.merchant_id } });
    if (!member) throw settlementErrors.notFound();
    if (!SETTLEMENT_ROLES.includes(member.role)) throw roleErrors.insufficientRole(member.role, SETTLEMENT_ROLES);
    return view(row);
  }

  private async row(id: string): Promise<Row | undefined> {
    const [row] = await this.deps.sequelize.query<Row>(`${SELECT} WHERE s.id = :id`, {
      replacements: { id },
      type: QueryTypes.SELECT,
    });
    return row;
  }

  private async count(merchantId: string, status: string | undefined): Promise<number> {
    const [row] = await this.deps.sequelize.query<{ n: string }>(
      `SELECT count(*) AS n FROM settlements s JOIN withdrawals w ON w.id = s.withdrawal_id WHERE s.merchant_id = :merchantId ${status ? 'AND w.status = :status' : ''}`,
      { replacements: { merchantId, status: status ?? null }, type: QueryTypes.SELECT },
    );
    return Number(row.n);
  }
}

function view(r: Row): SettlementView {
  const b = r.beneficiary_snapshot;
  return {
    id: r.id,
    merchantId: r.merchant_id,
    withdrawalId: r.withdrawal_id,
    trigger: r.trigger,
    requestedBy: r.requested_by,
    scheduleFrequency: r.schedule_frequency,
    status: r.status,
    amountCents: Number(r.amount_cents),
    feeCents: Number(r.fee_cents),
    totalDebitedCents: Number(r.total_debited_cents),
    destination: b ? { type: 'PIX', pixKeyType: b.pixKeyType, pixKeyMasked: maskPixKey(b.pixKey, b.pixKeyType) } : null,
    // The same public reference the withdrawal shows: never the supplier's own id.
    providerTransferId: r.provider_transfer_id ? publicTransferReference(r.provider_transfer_id) : null,
    endToEndId: r.provider_end_to_end_id,
    failure: r.failure_code ? { code: r.failure_code, reason: r.failure_reason ?? '' } : null,
    createdAt: new Date(r.created_at).toISOString(),
    processedAt: r.processed_at ? new Date(r.processed_at).toISOString() : null,
  };
}

/**
 * /settlements: a settlement moves a merchant's available balance to its own registered Pix key.
 * The money moves through the withdrawal machinery (withdrawalLifecycle, one transfer path): the
 * API starts that workflow with Update-With-Start and answers once the reservation — and, in the
 * same DB transaction, the settlement row — is committed. Owner, admin and finance act and read;
 * another merchant's settlement is 404 SETTLEMENT_NOT_FOUND, like one that does not exist.
 */
import type { Client } from '@temporalio/client';
import type { Sequelize } from 'sequelize';
import { maskPixKey } from '../../core/masking';
import { publicTransferReference } from '../../core/withdrawals/present';
import { memberStore, merchantStore, type MemberRole } from '../../db/identity';
import { settlementStore, type Settlement } from '../../db/settlements';
import {
  requestWithdrawalUpdate,
  withdrawalLifecycleWorkflow,
  withdrawalWorkflowId,
} from '../../workflows/withdrawals/definitions';
import type { WithdrawalInput } from '../../workflows/withdrawals/types';
import { defaultMerchantOf, requireRole, roleErrors } from '../identity/auth/roles';
import { ApiError, errors } from '../errors/apiError';
import { mapRequestError, pixKeyNotRegistered } from '../withdrawals/errors';
import { keyBoundTo } from '../temporal/temporalErrors';
import { updateWithStartOrJoin } from '../../core/temporal/updateWithStart';
import type { CreateSettlementBody, ListSettlementsQuery, SettlementView } from './schema';
import { refuseConnectedWithdrawal } from '../connections/accountModel';

export const SETTLEMENT_ROLES: readonly MemberRole[] = ['owner', 'admin', 'finance'];

export const settlementErrors = {
  notFound: () => new ApiError(404, 'SETTLEMENT_NOT_FOUND', 'settlement not found'),
};

export class SettlementService {
  constructor(private readonly deps: { sequelize: Sequelize; temporal: Client; taskQueue: string }) {}

  /** Fast refusals before a second factor is spent or a workflow started; the reservation checks again under lock. */
  async precheck(merchantId: string): Promise<void> {
    const merchant = await merchantStore.findMerchant(merchantId);
    if (!merchant || !merchant.active) throw errors.merchantIdRequired();
    if (merchant.withdrawalsFrozen) throw errors.withdrawalFrozen();
    if (!merchant.pixKey) throw pixKeyNotRegistered();
    await refuseConnectedWithdrawal(this.deps.sequelize, merchantId);
  }

  /** Settlement `settlementId` as it stands, if it was made (a resumed idempotency claim's resource id). */
  async find(settlementId: string): Promise<SettlementView | null> {
    const existing = await this.row(settlementId);
    return existing ? view(existing) : null;
  }

  /** Requests settlement `settlementId` (the idempotency claim's resource id) and answers it once reserved. */
  async create(
    userId: string,
    body: CreateSettlementBody,
    settlementId: string,
    idempotencyKey: string,
  ): Promise<SettlementView> {
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
      await updateWithStartOrJoin(this.deps.temporal, withdrawalLifecycleWorkflow, requestWithdrawalUpdate, {
        workflowId: withdrawalWorkflowId(withdrawalId),
        taskQueue: this.deps.taskQueue,
        args: [input],
        merchantId: body.merchantId,
        initialStatus: 'RESERVING',
      });
    } catch (err) {
      // The key already made a settlement of this merchant: answer it, as a replay would.
      const bound = keyBoundTo(err);
      const made = bound ? await this.row(bound) : null;
      if (made) return view(made);
      throw mapRequestError(err);
    }
    const row = await this.row(settlementId);
    if (!row) throw errors.unavailable('the settlement request was interrupted; retry with the same idempotency key');
    return view(row);
  }

  async list(userId: string, query: ListSettlementsQuery) {
    const merchantId = query.merchantId ?? (await defaultMerchantOf(userId));
    await requireRole(userId, merchantId, SETTLEMENT_ROLES);
    const { settlements: rows, total } = await settlementStore.listSettlements(this.deps.sequelize, {
      merchantId,
      status: query.status,
      limit: query.limit,
      offset: query.offset,
    });
    return {
      data: rows.map(view),
      pagination: { total, limit: query.limit, offset: query.offset, hasMore: query.offset + rows.length < total },
    };
  }

  async read(userId: string, id: string): Promise<SettlementView> {
    const row = await this.row(id);
    if (!row) throw settlementErrors.notFound();
    const member = await memberStore.findMembership(userId, row.merchantId);
    if (!member) throw settlementErrors.notFound();
    if (!SETTLEMENT_ROLES.includes(member.role)) throw roleErrors.insufficientRole(member.role, SETTLEMENT_ROLES);
    return view(row);
  }

  private row(id: string): Promise<Settlement | null> {
    return settlementStore.findSettlement(this.deps.sequelize, id);
  }
}

function view(r: Settlement): SettlementView {
  const b = r.beneficiarySnapshot;
  return {
    id: r.id,
    merchantId: r.merchantId,
    withdrawalId: r.withdrawalId,
    trigger: r.trigger,
    requestedBy: r.requestedBy,
    scheduleFrequency: r.scheduleFrequency,
    status: r.status as SettlementView['status'],
    amountCents: r.amountCents,
    feeCents: r.feeCents,
    totalDebitedCents: r.totalDebitedCents,
    destination: b ? { type: 'PIX', pixKeyType: b.pixKeyType, pixKeyMasked: maskPixKey(b.pixKey, b.pixKeyType) } : null,
    // The same public reference the withdrawal shows: never the supplier's own id.
    providerTransferId: r.providerTransferId ? publicTransferReference(r.providerTransferId) : null,
    endToEndId: r.providerEndToEndId,
    failure: r.failureCode ? { code: r.failureCode, reason: r.failureReason ?? '' } : null,
    createdAt: r.createdAt.toISOString(),
    processedAt: r.processedAt ? r.processedAt.toISOString() : null,
  };
}

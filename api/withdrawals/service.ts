/**
 * Seller withdrawals (saques). The API never moves money: a new withdrawal is a workflow
 * started with Update-With-Start, whose update answers once amount + fee are reserved in the
 * ledger, so the 201 and the durable state agree. A refused request (frozen, no Pix key,
 * insufficient balance) stores nothing and frees its idempotency key for a later retry; a
 * reservation given up leaves a FAILED row that the key answers from then on.
 */
import type { Client } from '@temporalio/client';
import { keyBoundTo } from '../temporal/temporalErrors';
import { updateWithStartOrJoin } from '../../core/temporal/updateWithStart';
import { merchantStore, type Merchant } from '../../db/identity';
import { presentWithdrawalRows, withdrawalStore } from '../../db/withdrawals';
import {
  requestWithdrawalUpdate,
  withdrawalLifecycleWorkflow,
  withdrawalWorkflowId,
} from '../../workflows/withdrawals/definitions';
import type { WithdrawalInput } from '../../workflows/withdrawals/types';
import { errors } from '../errors/apiError';
import { mapRequestError, pixKeyNotRegistered } from './errors';
import type { CreateWithdrawalBody, ListWithdrawalsQuery } from './schema';
import type { Sequelize } from 'sequelize';
import { refuseConnectedWithdrawal } from '../connections/accountModel';

export interface WithdrawalServiceDeps {
  sequelize: Sequelize;
  temporal: Client;
  taskQueue: string;
  /** config.platformInstitutionName: the source account's institution, as a withdrawal shows it. */
  platformInstitution: string;
}

export class WithdrawalService {
  constructor(private readonly deps: WithdrawalServiceDeps) {}

  /** Requests the withdrawal `withdrawalId` (the idempotency claim's resource id). */
  async create(
    merchant: Merchant,
    body: CreateWithdrawalBody,
    withdrawalId: string,
    resuming: boolean,
    idempotencyKey: string | null,
  ): Promise<Record<string, unknown>> {
    const input: WithdrawalInput = {
      withdrawalId,
      merchantId: merchant.id,
      amountCents: body.amountCents,
      description: body.description ?? null,
      idempotencyKey,
      userId: null, // client credentials act for the merchant, not for a signed-in user
    };
    return this.request(input, resuming);
  }

  async list(merchantId: string, query: ListWithdrawalsQuery): Promise<Record<string, unknown>> {
    const { rows, count } = await withdrawalStore.listWithdrawals(merchantId, query);
    return {
      withdrawals: await presentWithdrawalRows(merchantId, rows, this.deps.platformInstitution),
      pagination: {
        total: count,
        limit: query.limit,
        offset: query.offset,
        hasMore: query.offset + rows.length < count,
      },
    };
  }

  async findForMerchant(merchantId: string, id: string): Promise<Record<string, unknown>> {
    const row = await withdrawalStore.findMerchantWithdrawal(merchantId, id);
    if (!row) throw errors.notFound('withdrawal');
    const [presented] = await presentWithdrawalRows(merchantId, [row], this.deps.platformInstitution);
    return presented;
  }

  /** Starts the workflow and waits for the reservation; maps refusals to API errors. */
  private async request(input: WithdrawalInput, resuming: boolean): Promise<Record<string, unknown>> {
    if (resuming) {
      // A previous holder of this key died: its withdrawal may already exist.
      const existing = await withdrawalStore.findWithdrawal(input.withdrawalId);
      if (existing) return this.findForMerchant(input.merchantId, existing.id);
    }
    await this.precheck(input.merchantId);
    const workflowId = withdrawalWorkflowId(input.withdrawalId);
    try {
      await updateWithStartOrJoin(this.deps.temporal, withdrawalLifecycleWorkflow, requestWithdrawalUpdate, {
        workflowId,
        taskQueue: this.deps.taskQueue,
        args: [input],
        merchantId: input.merchantId,
        initialStatus: 'RESERVING',
      });
    } catch (err) {
      // The key already made a withdrawal of this merchant: answer it, as a replay would.
      const bound = keyBoundTo(err);
      if (bound) return this.findForMerchant(input.merchantId, bound);
      throw mapRequestError(err);
    }
    return this.findForMerchant(input.merchantId, input.withdrawalId);
  }

  /**
   * Fast answers without starting a workflow. The reservation checks the same rules again under
   * a lock on the merchant, which is what decides when an operator acts at the same moment.
   */
  private async precheck(merchantId: string): Promise<void> {
    const merchant = await merchantStore.findMerchant(merchantId);
    if (!merchant || !merchant.active) throw errors.merchantIdRequired();
    if (merchant.withdrawalsFrozen) throw errors.withdrawalFrozen();
    if (!merchant.pixKey) throw pixKeyNotRegistered();
    await refuseConnectedWithdrawal(this.deps.sequelize, merchantId);
  }
}

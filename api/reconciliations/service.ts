/**
 * /reconciliations: starts the Reconciliation workflow for a merchant's date range and reads its
 * reports. Owner, admin and finance (the roles that handle money) start and read them; another
 * merchant's reconciliation is 404 RECONCILIATION_NOT_FOUND, like one that does not exist.
 */
import crypto from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Sequelize } from 'sequelize';
import { memberStore, userStore, type MemberRole } from '../../db/identity';
import { reconciliationStore, type Reconciliation } from '../../db/reconciliations';
import { reconciliationWorkflow } from '../../workflows/reconciliations/definitions';
import { reconciliationWorkflowId } from '../../workflows/reconciliations/types';
import { MerchantIdKey } from '../../core/temporal/searchAttributes';
import { defaultMerchantOf, requireRole, roleErrors } from '../identity/auth/roles';
import { ApiError } from '../errors/apiError';
import { temporalErrorToApi } from '../temporal/temporalErrors';
import { startWorkflow } from '../../core/temporal/workflows';
import type { CreateReconciliationBody, ListReconciliationsQuery, ReconciliationView } from './schema';

export const RECONCILIATION_ROLES: readonly MemberRole[] = ['owner', 'admin', 'finance'];

export const reconciliationErrors = {
  notFound: () => new ApiError(404, 'RECONCILIATION_NOT_FOUND', 'reconciliation not found'),
  operatorsOnly: () =>
    new ApiError(403, 'PLATFORM_OPERATOR_REQUIRED', 'only platform operators read the platform-wide reconciliations'),
};

export class ReconciliationService {
  constructor(private readonly deps: { sequelize: Sequelize; temporal: Client; taskQueue: string }) {}

  async create(userId: string, body: CreateReconciliationBody): Promise<ReconciliationView> {
    const merchantId = body.merchantId ?? null;
    if (merchantId) await requireRole(userId, merchantId, RECONCILIATION_ROLES);
    else if (!(await isPlatformOperator(userId))) {
      throw new ApiError(
        400,
        'VALIDATION_ERROR',
        'merchantId is required: only platform operators reconcile every merchant at once',
        { field: 'merchantId' },
      );
    }
    const today = new Date(Date.now() - 3 * 3_600_000).toISOString().slice(0, 10); // Brasília's today
    if (body.to > today)
      throw new ApiError(400, 'VALIDATION_ERROR', 'to must not be in the future (Brasília calendar)', {
        field: 'to',
        today,
      });
    const id = crypto.randomUUID();
    await reconciliationStore.createRun(this.deps.sequelize, {
      id,
      merchantId,
      from: body.from,
      to: body.to,
      requestedBy: userId,
    });
    try {
      await startWorkflow(this.deps.temporal, reconciliationWorkflow, {
        workflowId: reconciliationWorkflowId(id),
        taskQueue: this.deps.taskQueue,
        args: [{ reconciliationId: id }],
        typedSearchAttributes: merchantId ? [{ key: MerchantIdKey, value: merchantId }] : [],
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) {
        // Never started: the row would stay RUNNING forever, so it says why instead.
        await reconciliationStore.markNotStarted(this.deps.sequelize, id);
        throw temporalErrorToApi(err, { unavailable: 'the workflow service is unavailable; retry' });
      }
    }
    return this.read(userId, id);
  }

  async list(userId: string, query: ListReconciliationsQuery) {
    let merchantId: string | null = null;
    if (query.platform) {
      // Who may ask comes first: to anyone but an operator, platform=true is simply forbidden.
      if (!(await isPlatformOperator(userId))) throw reconciliationErrors.operatorsOnly();
      if (query.merchantId)
        throw new ApiError(
          400,
          'VALIDATION_ERROR',
          'platform=true lists the runs with no merchant: leave merchantId out',
          { field: 'merchantId' },
        );
    } else {
      merchantId = query.merchantId ?? (await defaultMerchantOf(userId));
      await requireRole(userId, merchantId, RECONCILIATION_ROLES);
    }
    const { runs: rows, total } = await reconciliationStore.listRuns(this.deps.sequelize, merchantId, query);
    return {
      data: rows.map(view),
      pagination: { total, limit: query.limit, offset: query.offset, hasMore: query.offset + rows.length < total },
    };
  }

  async read(userId: string, id: string): Promise<ReconciliationView> {
    const row = await reconciliationStore.findRun(this.deps.sequelize, id);
    if (!row) throw reconciliationErrors.notFound();
    if (row.merchantId === null) {
      // A platform-wide run: for operators only; to anyone else it does not exist.
      if (!(await isPlatformOperator(userId))) throw reconciliationErrors.notFound();
      return view(row);
    }
    const member = await memberStore.findMembership(userId, row.merchantId);
    if (!member) throw reconciliationErrors.notFound();
    if (!RECONCILIATION_ROLES.includes(member.role))
      throw roleErrors.insufficientRole(member.role, RECONCILIATION_ROLES);
    return view(row);
  }
}

function view(r: Reconciliation): ReconciliationView {
  return {
    id: r.id,
    merchantId: r.merchantId,
    pspConnectionId: r.pspConnectionId,
    from: r.fromDate,
    to: r.toDate,
    status: r.status,
    counts: { ...r.counts },
    // Reports stored before transfers were compared lack the transfer fields.
    differences: r.differences.map((d) => ({
      ...d,
      transferId: d.transferId ?? null,
      transferKind: d.transferKind ?? null,
    })),
    failureReason: r.failureReason,
    createdAt: r.createdAt.toISOString(),
    completedAt: r.completedAt ? r.completedAt.toISOString() : null,
  };
}

/** The gateway's own staff (marked by the CLI `user operator`), never a merchant's role. */
const isPlatformOperator = (userId: string) => userStore.isPlatformOperator(userId);

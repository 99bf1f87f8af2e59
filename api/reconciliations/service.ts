/**
 * /reconciliations: starts the Reconciliation workflow for a merchant's date range and reads its
 * reports. Owner, admin and finance (the roles that handle money) start and read them; another
 * merchant's reconciliation is 404 RECONCILIATION_NOT_FOUND, like one that does not exist.
 */
import crypto from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { QueryTypes, type Sequelize } from 'sequelize';
import { MerchantMember, User } from '../../db/models';
import type { MemberRole } from '../../db/identity/merchantMember';
import type { reconciliation } from '../../workflows/reconciliations/reconciliation';
import { reconciliationWorkflowId, type ReconciliationDifference } from '../../workflows/reconciliations/types';
import { MerchantIdKey } from '../../workflows/searchAttributes';
import { defaultMerchantOf, requireRole, roleErrors } from '../dashboard/roles';
import { ApiError } from '../errors/apiError';
import type { CreateReconciliationBody, ListReconciliationsQuery, ReconciliationView } from './schema';

export const RECONCILIATION_ROLES: readonly MemberRole[] = ['owner', 'admin', 'finance'];

export const reconciliationErrors = {
  notFound: () => new ApiError(404, 'RECONCILIATION_NOT_FOUND', 'reconciliation not found'),
  operatorsOnly: () =>
    new ApiError(403, 'PLATFORM_OPERATOR_REQUIRED', 'only platform operators read the platform-wide reconciliations'),
};

interface Row {
  id: string;
  merchant_id: string | null;
  from_date: string;
  to_date: string;
  status: ReconciliationView['status'];
  matched_count: number;
  missing_in_ledger_count: number;
  missing_at_provider_count: number;
  amount_mismatch_count: number;
  healed_count: number;
  differences: ReconciliationDifference[];
  failure_reason: string | null;
  created_at: Date;
  completed_at: Date | null;
}

const COLUMNS = `id, merchant_id, to_char(from_date, 'YYYY-MM-DD') AS from_date, to_char(to_date, 'YYYY-MM-DD') AS to_date, status,
  matched_count, missing_in_ledger_count, missing_at_provider_count, amount_mismatch_count, healed_count, differences, failure_reason, created_at, completed_at`;

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
    await this.deps.sequelize.query(
      `INSERT INTO reconciliations (id, merchant_id, from_date, to_date, requested_by) VALUES (:id, :merchantId, :from, :to, :userId)`,
      { replacements: { id, merchantId, from: body.from, to: body.to, userId } },
    );
    try {
      await this.deps.temporal.workflow.start<typeof reconciliation>('reconciliation', {
        workflowId: reconciliationWorkflowId(id),
        taskQueue: this.deps.taskQueue,
        args: [{ reconciliationId: id }],
        typedSearchAttributes: merchantId ? [{ key: MerchantIdKey, value: merchantId }] : [],
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) {
        // Never started: the row would stay RUNNING forever, so it says why instead.
        await this.deps.sequelize.query(
          `UPDATE reconciliations SET status = 'FAILED', completed_at = now(), failure_reason = 'could not start the workflow' WHERE id = :id`,
          { replacements: { id } },
        );
        throw err;
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
    const rows = await this.deps.sequelize.query<Row & { total: string }>(
      `SELECT ${COLUMNS}, count(*) OVER () AS total FROM reconciliations WHERE merchant_id IS NOT DISTINCT FROM CAST(:merchantId AS uuid)
       ORDER BY created_at DESC, id DESC LIMIT :limit OFFSET :offset`,
      { replacements: { merchantId, limit: query.limit, offset: query.offset }, type: QueryTypes.SELECT },
    );
    const total = rows.length ? Number(rows[0].total) : await this.count(merchantId);
    return {
      data: rows.map(view),
      pagination: { total, limit: query.limit, offset: query.offset, hasMore: query.offset + rows.length < total },
    };
  }

  async read(userId: string, id: string): Promise<ReconciliationView> {
    const [row] = await this.deps.sequelize.query<Row>(`SELECT ${COLUMNS} FROM reconciliations WHERE id = :id`, {
      replacements: { id },
      type: QueryTypes.SELECT,
    });
    if (!row) throw reconciliationErrors.notFound();
    if (row.merchant_id === null) {
      // A platform-wide run: for operators only; to anyone else it does not exist.
      if (!(await isPlatformOperator(userId))) throw reconciliationErrors.notFound();
      return view(row);
    }
    const member = await MerchantMember.findOne({ where: { userId, merchantId: row.merchant_id } });
    if (!member) throw reconciliationErrors.notFound();
    if (!RECONCILIATION_ROLES.includes(member.role))
      throw roleErrors.insufficientRole(member.role, RECONCILIATION_ROLES);
    return view(row);
  }

  private async count(merchantId: string | null): Promise<number> {
    const [row] = await this.deps.sequelize.query<{ n: string }>(
      `SELECT count(*) AS n FROM reconciliations WHERE merchant_id IS NOT DISTINCT FROM CAST(:merchantId AS uuid)`,
      {
        replacements: { merchantId },
        type: QueryTypes.SELECT,
      },
    );
    return Number(row.n);
  }
}

function view(r: Row): ReconciliationView {
  return {
    id: r.id,
    merchantId: r.merchant_id,
    from: r.from_date,
    to: r.to_date,
    status: r.status,
    counts: {
      matched: r.matched_count,
      missingInLedger: r.missing_in_ledger_count,
      missingAtProvider: r.missing_at_provider_count,
      amountMismatch: r.amount_mismatch_count,
      healed: r.healed_count,
    },
    // Reports stored before transfers were compared lack the transfer fields.
    differences: r.differences.map((d) => ({
      ...d,
      transferId: d.transferId ?? null,
      transferKind: d.transferKind ?? null,
    })),
    failureReason: r.failure_reason,
    createdAt: new Date(r.created_at).toISOString(),
    completedAt: r.completed_at ? new Date(r.completed_at).toISOString() : null,
  };
}

/** The gateway's own staff (marked by the CLI `user operator`), never a merchant's role. */
async function isPlatformOperator(userId: string): Promise<boolean> {
  const user = await User.findByPk(userId, { attributes: ['platformOperator', 'deletedAt'] });
  return Boolean(user && !user.deletedAt && user.platformOperator);
}

/**
 * /med/infractions: Pix infractions (MED) of a merchant. Every member reads them (like charges);
 * owner, admin and finance (the roles that handle money) sync and decide. Another merchant's
 * infraction is 404 INFRACTION_NOT_FOUND, like one that does not exist. A decision is a Temporal
 * Update on the infraction's workflow: it answers once the decision is recorded.
 */
import crypto from 'node:crypto';
import {
  WorkflowFailedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  ApplicationFailure,
  type Client,
} from '@temporalio/client';
import { QueryTypes, type Sequelize } from 'sequelize';
import { MerchantMember } from '../../db/models';
import type { MemberRole } from '../../db/identity/merchantMember';
import {
  findInfraction,
  presentInfraction,
  type MedInfractionRow,
  type MedInfractionView,
} from '../../db/med/medInfractions';
import { decideInfractionUpdate, medInfractionWorkflowId } from '../../workflows/med/definitions';
import type { medInfractionSync } from '../../workflows/med/medInfractionSync';
import { MedFailureTypes, reminderBeforeMs } from '../../workflows/med/types';
import { MerchantIdKey } from '../../workflows/searchAttributes';
import { ANY_ROLE, defaultMerchantOf, requireRole, roleErrors } from '../dashboard/roles';
import { ApiError, errors } from '../errors/apiError';
import type { AnalysisBody, BulkAnalysisBody, ListInfractionsQuery, SyncInfractionsBody } from './schema';

export const MED_DECIDE_ROLES: readonly MemberRole[] = ['owner', 'admin', 'finance'];

export const medErrors = {
  notFound: () => new ApiError(404, 'INFRACTION_NOT_FOUND', 'infraction not found'),
  alreadyDecided: (status: string) =>
    new ApiError(409, 'INFRACTION_ALREADY_DECIDED', `this infraction was already decided (${status})`, { status }),
};

export interface MedSettings {
  /** MED_ANALYSIS_DEADLINE_SECONDS, in ms: how long a merchant has to answer (default 7 days). */
  analysisDeadlineMs: number;
  /** MED_REMINDER_BEFORE_SECONDS, in ms: the reminder's lead (default 1 day; at most a fifth of the window). */
  reminderBeforeMs: number;
}

export const DEFAULT_MED_SETTINGS: MedSettings = { analysisDeadlineMs: 7 * 86_400_000, reminderBeforeMs: 86_400_000 };

/** Runs after the checks, before anything changes: the second factor of an ACCEPT (it sends money). */
export type Authorize = (decision: AnalysisBody['decision']) => Promise<void>;

export class MedService {
  constructor(
    private readonly deps: { sequelize: Sequelize; temporal: Client; taskQueue: string; settings: MedSettings },
  ) {}

  async list(userId: string, query: ListInfractionsQuery) {
    const merchantId = query.merchantId ?? (await defaultMerchantOf(userId));
    await requireRole(userId, merchantId, ANY_ROLE);
    const rows = await this.deps.sequelize.query<MedInfractionRow & { total: string }>(
      `SELECT *, count(*) OVER () AS total FROM med_infractions WHERE merchant_id = :merchantId ${query.status ? 'AND status = :status' : ''}
        ORDER BY created_at DESC, id DESC LIMIT :limit OFFSET :offset`,
      {
        replacements: { merchantId, status: query.status ?? null, limit: query.limit, offset: query.offset },
        type: QueryTypes.SELECT,
      },
    );
    const total = rows.length ? Number(rows[0].total) : await this.count(merchantId, query.status);
    return {
      data: rows.map(presentInfraction),
      pagination: { total, limit: query.limit, offset: query.offset, hasMore: query.offset + rows.length < total },
    };
  }

  async read(userId: string, id: string): Promise<MedInfractionView> {
    return presentInfraction(await this.visible(userId, id, ANY_ROLE));
  }

  /** Runs the sync workflow (as the schedule does) and answers this merchant's infractions it created. */
  async sync(userId: string, body: SyncInfractionsBody) {
    const merchantId = body.merchantId ?? (await defaultMerchantOf(userId));
    await requireRole(userId, merchantId, MED_DECIDE_ROLES);
    const { analysisDeadlineMs } = this.deps.settings;
    const result = await this.deps.temporal.workflow
      .execute<typeof medInfractionSync>('medInfractionSync', {
        workflowId: `med-infraction-sync-${crypto.randomUUID()}`,
        taskQueue: this.deps.taskQueue,
        args: [
          {
            merchantId,
            analysisDeadlineMs,
            reminderBeforeMs: reminderBeforeMs(analysisDeadlineMs, this.deps.settings.reminderBeforeMs),
          },
        ],
        typedSearchAttributes: [{ key: MerchantIdKey, value: merchantId }],
      })
      .catch((err: unknown) => {
        // The provider kept failing: what was stored is kept (the next sync goes on from there).
        if (err instanceof WorkflowFailedError)
          throw errors.unavailable('the provider could not be read; retry the sync');
        throw err;
      });
    const rows = result.createdIds.length
      ? await this.deps.sequelize.query<MedInfractionRow>(
          `SELECT * FROM med_infractions WHERE id IN (:ids) AND merchant_id = :merchantId ORDER BY opened_at, id`,
          {
            replacements: { ids: result.createdIds, merchantId },
            type: QueryTypes.SELECT,
          },
        )
      : [];
    return { created: rows.length, data: rows.map(presentInfraction) };
  }

  /** Checks everything a decision needs (found, role, still OPEN) without changing anything. */
  async check(userId: string, id: string): Promise<MedInfractionRow> {
    const row = await this.visible(userId, id, MED_DECIDE_ROLES);
    if (row.status !== 'OPEN') throw medErrors.alreadyDecided(row.status);
    return row;
  }

  async decide(userId: string, id: string, body: AnalysisBody, authorize: Authorize): Promise<MedInfractionView> {
    await this.check(userId, id);
    await authorize(body.decision);
    await this.apply(userId, id, body);
    return presentInfraction((await findInfraction(this.deps.sequelize, id)) as MedInfractionRow);
  }

  /**
   * Several decisions: every item is checked first; one second factor covers the request's
   * ACCEPTs (asked only when one passes its checks); then each is applied. Per-item results.
   */
  async decideMany(userId: string, body: BulkAnalysisBody, authorize: Authorize) {
    const checked = await Promise.all(
      body.items.map(async (item) => ({
        item,
        error: await this.check(userId, item.id).then(
          () => null,
          (err: unknown) => err,
        ),
      })),
    );
    if (checked.some((c) => !c.error && c.item.decision === 'ACCEPT')) await authorize('ACCEPT');
    const results = [];
    for (const { item, error } of checked) {
      const err =
        error ??
        (await this.apply(userId, item.id, item).then(
          () => null,
          (e: unknown) => e,
        ));
      if (err) {
        if (!(err instanceof ApiError)) throw err;
        results.push({ id: item.id, status: err.status, error: { code: err.code, message: err.message } });
        continue;
      }
      results.push({
        id: item.id,
        status: 200,
        infraction: presentInfraction((await findInfraction(this.deps.sequelize, item.id)) as MedInfractionRow),
      });
    }
    return { results };
  }

  private async apply(userId: string, id: string, body: AnalysisBody): Promise<void> {
    try {
      await this.deps.temporal.workflow.getHandle(medInfractionWorkflowId(id)).executeUpdate(decideInfractionUpdate, {
        args: [{ decision: body.decision, justification: body.justification, decidedBy: userId }],
      });
    } catch (err) {
      if (
        err instanceof WorkflowUpdateFailedError &&
        err.cause instanceof ApplicationFailure &&
        err.cause.type === MedFailureTypes.alreadyDecided
      ) {
        throw medErrors.alreadyDecided((await findInfraction(this.deps.sequelize, id))?.status ?? 'decided');
      }
      if (err instanceof WorkflowNotFoundError)
        throw errors.unavailable('this infraction is not being tracked yet; run POST /med/infractions/sync and retry');
      // Any other failure of the update: nothing was recorded (the update answers only after the decision is).
      if (err instanceof WorkflowUpdateFailedError)
        throw errors.unavailable('the decision could not be applied; retry');
      throw err;
    }
  }

  private async visible(userId: string, id: string, roles: readonly MemberRole[]): Promise<MedInfractionRow> {
    const row = await findInfraction(this.deps.sequelize, id);
    if (!row) throw medErrors.notFound();
    const member = await MerchantMember.findOne({ where: { userId, merchantId: row.merchant_id } });
    if (!member) throw medErrors.notFound();
    if (!roles.includes(member.role)) throw roleErrors.insufficientRole(member.role, roles);
    return row;
  }

  private async count(merchantId: string, status?: string): Promise<number> {
    const [row] = await this.deps.sequelize.query<{ n: string }>(
      `SELECT count(*) AS n FROM med_infractions WHERE merchant_id = :merchantId ${status ? 'AND status = :status' : ''}`,
      {
        replacements: { merchantId, status: status ?? null },
        type: QueryTypes.SELECT,
      },
    );
    return Number(row.n);
  }
}

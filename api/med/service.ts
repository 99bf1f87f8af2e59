/**
 * /med/infractions: Pix infractions (MED) of a merchant. Every member reads them (like charges);
 * owner, admin and finance (the roles that handle money) sync and decide. A split partner the
 * claim reached (MED 2.0, `parties`) reads the case too, in its own list, with its own part
 * (partyView.ts); only the charge's owner acts on it: a partner's analysis, evidence or defence is
 * 403 INFRACTION_OWNER_ONLY (it may see the case, as a member whose role may not act gets 403).
 * A merchant that is neither gets 404 INFRACTION_NOT_FOUND, like a case that does not exist. A
 * decision is a Temporal Update on the infraction's workflow: it answers once it is recorded.
 */
import crypto from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Sequelize } from 'sequelize';
import { memberStore, type MemberRole } from '../../db/identity';
import { medInfractionStore, presentInfraction, type MedInfractionRow, type MedInfractionView } from '../../db/med';
import {
  decideInfractionUpdate,
  medInfractionSyncWorkflow,
  medInfractionWorkflow,
  medInfractionWorkflowId,
} from '../../workflows/med/definitions';
import { MedFailureTypes, reminderBeforeMs } from '../../workflows/med/types';
import { MerchantIdKey } from '../../core/temporal/searchAttributes';
import { ANY_ROLE, defaultMerchantOf, requireRole, roleErrors } from '../identity/auth/roles';
import { ApiError, errors } from '../errors/apiError';
import { applicationFailureOf } from '../../core/temporal/failures';
import { temporalErrorToApi } from '../temporal/temporalErrors';
import { executeWorkflow, workflowHandle } from '../../core/temporal/workflows';
import type { ObjectStore } from '../../core/storage/objectStore';
import { asViewer, partyRoleOf, type InfractionAsViewer, type PartyRole } from './partyView';
import { checkEvidence, defenceErrors, defenceOf, presignEvidence, storeDefence, timelineOf } from './defence';
import type {
  AnalysisBody,
  BulkAnalysisBody,
  DefenceBody,
  EvidenceUploadBody,
  ListInfractionsQuery,
  SyncInfractionsBody,
} from './schema';

export const MED_DECIDE_ROLES: readonly MemberRole[] = ['owner', 'admin', 'finance'];

export const medErrors = {
  notFound: () => new ApiError(404, 'INFRACTION_NOT_FOUND', 'infraction not found'),
  ownerOnly: () =>
    new ApiError(
      403,
      'INFRACTION_OWNER_ONLY',
      "only the charge's owner answers this infraction; a split partner the claim reached reads it",
    ),
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
    private readonly deps: {
      sequelize: Sequelize;
      temporal: Client;
      taskQueue: string;
      settings: MedSettings;
      /** Where defence evidence files are uploaded (the object store of avatars). */
      store: ObjectStore;
    },
  ) {}

  async list(userId: string, query: ListInfractionsQuery) {
    const merchantId = query.merchantId ?? (await defaultMerchantOf(userId));
    await requireRole(userId, merchantId, ANY_ROLE);
    const { rows, total } = await medInfractionStore.listInfractions(this.deps.sequelize, {
      merchantId,
      status: query.status,
      limit: query.limit,
      offset: query.offset,
    });
    return {
      // Every row is the merchant's as owner or as a party (the store's filter).
      data: rows.map((r) => asViewer(presentInfraction(r), merchantId, partyRoleOf(r, merchantId) ?? 'PARTNER')),
      pagination: { total, limit: query.limit, offset: query.offset, hasMore: query.offset + rows.length < total },
    };
  }

  async read(userId: string, id: string): Promise<InfractionAsViewer> {
    const { row, merchantId, role } = await this.party(userId, id, ANY_ROLE);
    return asViewer(presentInfraction(row), merchantId, role);
  }

  /** The case when the user may act on it (its charge's owner's member): a split partner's → 403 INFRACTION_OWNER_ONLY. */
  async owned(userId: string, id: string): Promise<MedInfractionView> {
    return presentInfraction(await this.visible(userId, id, ANY_ROLE));
  }

  /**
   * Runs the sync workflow (as the schedule does) and answers this merchant's infractions it
   * created; 503 when the merchant's own connection could not be read this time.
   */
  async sync(userId: string, body: SyncInfractionsBody) {
    const merchantId = body.merchantId ?? (await defaultMerchantOf(userId));
    await requireRole(userId, merchantId, MED_DECIDE_ROLES);
    const { analysisDeadlineMs } = this.deps.settings;
    const result = await executeWorkflow(this.deps.temporal, medInfractionSyncWorkflow, {
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
    }).catch((err: unknown) => {
      throw temporalErrorToApi(err, {
        // The provider kept failing: what was stored is kept (the next sync goes on from there).
        otherFailure: () => errors.unavailable('the provider could not be read; retry the sync'),
        unavailable: 'the workflow service is unavailable; retry the sync',
      });
    });
    // The merchant's own connection could not be read (the other accounts were): its infractions may be missing.
    if (result.failedConnections.some((f) => f.merchantId === merchantId))
      throw errors.unavailable(
        "your PSP account's infractions could not be read; check the connection and retry the sync",
      );
    const rows = await medInfractionStore.merchantInfractions(this.deps.sequelize, merchantId, result.createdIds);
    return { created: rows.length, data: rows.map(presentInfraction) };
  }

  /** Checks everything a decision needs (found, role, still OPEN) without changing anything. */
  async check(userId: string, id: string): Promise<MedInfractionRow> {
    const row = await this.visible(userId, id, MED_DECIDE_ROLES);
    if (row.status !== 'OPEN') throw medErrors.alreadyDecided(row.status);
    return row;
  }

  /**
   * The decision a stalled or dead holder of this request's idempotency claim recorded (the same
   * decision, by the same user), for the request that took the claim over: answered before the
   * second factor, which the holder spent.
   */
  async recordedDecision(userId: string, id: string, body: AnalysisBody): Promise<MedInfractionView | null> {
    const row = await medInfractionStore.findInfraction(this.deps.sequelize, id);
    const same = row && row.status !== 'OPEN' && row.decision === body.decision && row.decided_by === userId;
    return same ? presentInfraction(row) : null;
  }

  async decide(userId: string, id: string, body: AnalysisBody, authorize: Authorize): Promise<MedInfractionView> {
    await this.check(userId, id);
    await authorize(body.decision);
    await this.apply(userId, id, body);
    return presentInfraction((await medInfractionStore.findInfraction(this.deps.sequelize, id)) as MedInfractionRow);
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
        infraction: presentInfraction(
          (await medInfractionStore.findInfraction(this.deps.sequelize, item.id)) as MedInfractionRow,
        ),
      });
    }
    return { results };
  }

  /** The case's steps with their times and its defence, from stored rows. */
  async timeline(userId: string, id: string) {
    const { row, merchantId, role } = await this.party(userId, id, ANY_ROLE);
    return timelineOf(this.deps.sequelize, row, asViewer(presentInfraction(row), merchantId, role), role === 'PARTNER');
  }

  /** A presigned upload of one evidence file, while the case is OPEN and has no defence yet. */
  async presignEvidence(userId: string, id: string, body: EvidenceUploadBody) {
    const row = await this.check(userId, id);
    if (await defenceOf(this.deps.sequelize, row.id)) throw defenceErrors.alreadySubmitted();
    return presignEvidence(this.deps.store, row.id, body);
  }

  /**
   * The defence (api/med/defence.ts): files checked, then the defence stored, then its text sent
   * to the PSP as a REJECT. A retry after a failed sending (503) with the same text sends the
   * stored one; another text is 409 DEFENCE_ALREADY_SUBMITTED.
   */
  async submitDefence(userId: string, id: string, body: DefenceBody) {
    const row = await this.check(userId, id);
    const stored = await defenceOf(this.deps.sequelize, row.id);
    if (stored && stored.text !== body.text) throw defenceErrors.alreadySubmitted();
    if (!stored) {
      const evidence = await checkEvidence(this.deps.store, row.id, body.evidenceKeys);
      if (!(await storeDefence(this.deps.sequelize, row, userId, body, evidence)))
        throw defenceErrors.alreadySubmitted();
    }
    const defence = await defenceOf(this.deps.sequelize, row.id);
    await this.apply(userId, id, { decision: 'REJECT', justification: (defence ?? body).text }).catch(
      (err: unknown) => {
        if (err instanceof ApiError && err.status === 503)
          throw errors.unavailable(
            'the defence is stored but could not be sent yet; retry with the same text, or it is sent at the deadline',
          );
        throw err;
      },
    );
    return {
      infraction: presentInfraction(
        (await medInfractionStore.findInfraction(this.deps.sequelize, id)) as MedInfractionRow,
      ),
      defence: await defenceOf(this.deps.sequelize, row.id),
    };
  }

  private async apply(userId: string, id: string, body: AnalysisBody): Promise<void> {
    try {
      await workflowHandle(this.deps.temporal, medInfractionWorkflow, medInfractionWorkflowId(id)).executeUpdate(
        decideInfractionUpdate,
        { decision: body.decision, justification: body.justification, decidedBy: userId },
      );
    } catch (err) {
      // The one answer that reads the row (for its status); the others come from the answers below.
      if (applicationFailureOf(err)?.type === MedFailureTypes.alreadyDecided) {
        throw medErrors.alreadyDecided(
          (await medInfractionStore.findInfraction(this.deps.sequelize, id))?.status ?? 'decided',
        );
      }
      throw temporalErrorToApi(err, {
        notFound: () =>
          errors.unavailable('this infraction is not being tracked yet; run POST /med/infractions/sync and retry'),
        // Any other failure of the update: nothing was recorded (the update answers only after the decision is).
        otherFailure: () => errors.unavailable('the decision could not be applied; retry'),
        unavailable: 'the workflow service is unavailable; retry',
      });
    }
  }

  /** The case to act on: its charge owner's member with one of `roles`; a partner's member → 403; anyone else → 404. */
  private async visible(userId: string, id: string, roles: readonly MemberRole[]): Promise<MedInfractionRow> {
    const { row, role } = await this.party(userId, id, roles);
    if (role !== 'OWNER') throw medErrors.ownerOnly();
    return row;
  }

  /**
   * The case and the merchant the user reads it as: the charge's owner when the user is its
   * member, else the first split partner of `parties` the user is a member of; 404 when none.
   */
  private async party(
    userId: string,
    id: string,
    roles: readonly MemberRole[],
  ): Promise<{ row: MedInfractionRow; merchantId: string; role: PartyRole }> {
    const row = await medInfractionStore.findInfraction(this.deps.sequelize, id);
    if (!row) throw medErrors.notFound();
    const candidates = [row.merchant_id, ...(row.parties ?? []).map((p) => p.merchantId)];
    for (const merchantId of new Set(candidates)) {
      const member = await memberStore.findMembership(userId, merchantId);
      if (!member) continue;
      if (!roles.includes(member.role)) throw roleErrors.insufficientRole(member.role, roles);
      return { row, merchantId, role: partyRoleOf(row, merchantId) as PartyRole };
    }
    throw medErrors.notFound();
  }
}

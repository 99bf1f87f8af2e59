import crypto from 'node:crypto';
import { Context } from '@temporalio/activity';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { attributeInfraction } from '../../core/med/attribution';
import { BusinessStatusKey, MerchantIdKey } from '../../core/temporal/searchAttributes';
import type { ProviderInfractionStatus } from '../../core/provider';
import { startWorkflow, workflowHandle } from '../../core/temporal/workflows';
import { chargeStore } from '../../db/charges';
import { eachActiveConnection } from '../provider/accounts/eachActiveConnection';
import { medInfractionStore } from '../../db/med';
import { medInfractionWorkflow, medInfractionWorkflowId, pspOutcomeSignal } from '../../workflows/med/definitions';
import type { MedInfractionInput, MedSyncInput, MedSyncResult, PspOutcome } from '../../workflows/med/types';
import { infractionProviderOf, type MedActivityDeps } from './infraction';

/**
 * Pulls the infractions of every PSP account we speak to (each ACTIVE connection's, then the
 * platform's), inserts the new ones (unique provider id) with the account they were read from,
 * each matched to our charge by endToEndId and attributed to its merchant only when that charge was
 * received at that account (core/med/attribution.ts), and starts one medInfraction workflow for
 * every OPEN one (already started: fine). An infraction we have no charge for is counted, not
 * stored; one naming a charge of another account is logged, not stored. One connection that cannot
 * be read (revoked certificate, expired secret, its PSP down) is logged and skipped, so it stops
 * only its merchant's pull until the next sync; the platform's account failing fails the sync.
 *
 * MED 2.0: the receiving PSP decides a defended case. The same read covers every case we still
 * hold from that account (OPEN or IN_DEFENCE: it goes back to the oldest one's opening), and each
 * one the PSP decided or cancelled is signalled to its workflow with the PSP's outcome (pspOutcome;
 * every sync that sees it again signals again until the workflow has recorded it: the workflow
 * takes the first one).
 */
export async function syncMedInfractions(deps: MedActivityDeps, input: MedSyncInput): Promise<MedSyncResult> {
  const result: MedSyncResult = {
    pulled: 0,
    created: 0,
    unmatched: 0,
    otherAccount: 0,
    createdIds: [],
    failedConnections: [],
    decidedAtPsp: 0,
  };
  const decided: Decided[] = [];
  // Connections first: an infraction a wider list (the bundled sandbox's own API) also shows on the
  // platform's account is then already stored from its own account when the platform's is read.
  const { failed } = await eachActiveConnection(
    deps,
    "MED sync: this connection's infractions could not be read; the next sync tries again",
    // No charge was received at the account before its connection was registered (a charge's account is fixed at issue).
    (connection) =>
      storeNewInfractions(deps, input, { connectionId: connection.id, from: connection.createdAt }, result, decided),
  );
  result.failedConnections.push(...failed.map((c) => ({ connectionId: c.id, merchantId: c.merchantId })));
  await storeNewInfractions(deps, input, { connectionId: null, from: new Date(0) }, result, decided);
  await startOpenInfractions(deps, input);
  // After the starts: a case cancelled while OPEN has its workflow to end it.
  result.decidedAtPsp = await signalPspOutcomes(deps, decided);
  return result;
}

/** A held case the PSP decided or cancelled (our id), with its outcome. */
interface Decided {
  infractionId: string;
  outcome: PspOutcome;
}

/**
 * The PSP's final statuses in its outcome's words: ACCEPTED after our defence is the claim upheld
 * (after our own ACCEPT the workflow, already past its wait, ignores it), REJECTED the defence
 * dismissed, CANCELLED the case cancelled; OPEN and IN_DEFENCE: not decided yet.
 */
const OUTCOME_OF: Partial<Record<ProviderInfractionStatus, PspOutcome>> = {
  ACCEPTED: 'UPHELD',
  REJECTED: 'DISMISSED',
  CANCELLED: 'CANCELLED',
};

/** Signals each decided case's workflow; one whose run has ended is logged (its row was changed by it). */
async function signalPspOutcomes(deps: MedActivityDeps, decided: Decided[]): Promise<number> {
  const ctx = Context.current();
  let signalled = 0;
  for (const d of decided) {
    try {
      await workflowHandle(ctx.client, medInfractionWorkflow, medInfractionWorkflowId(d.infractionId)).signal(
        pspOutcomeSignal,
        { outcome: d.outcome },
      );
      signalled++;
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
      deps.logger.warn(
        { infractionId: d.infractionId, outcome: d.outcome },
        "MED sync: the PSP decided a case whose workflow is not running; the case's row is left as it is",
      );
    }
  }
  return signalled;
}

/**
 * The new infractions of one account (`connectionId` null: the platform's), added to `result`;
 * `from`: where its first read starts, before it holds any.
 */
async function storeNewInfractions(
  deps: MedActivityDeps,
  input: MedSyncInput,
  account: { connectionId: string | null; from: Date },
  result: MedSyncResult,
  decided: Decided[],
): Promise<void> {
  const { sequelize } = deps;
  const { connectionId } = account;
  const provider = await infractionProviderOf(deps, connectionId);
  const newest = (await medInfractionStore.newestOpenedAt(sequelize, connectionId)) ?? account.from;
  // The cases the PSP may still decide: the read goes back to the oldest one's opening (at most the
  // 80-day window), so their statuses come with the new ones.
  const held = await medInfractionStore.heldAtAccount(sequelize, connectionId);
  const from = Math.min(newest.getTime(), ...held.map((h) => h.openedAt.getTime()));
  // A minute back: the provider's clock and ours may differ a little; duplicates are ignored.
  const since = new Date(Math.max(0, from - 60_000)).toISOString();
  const pulled = await provider.listInfractions(since);
  result.pulled += pulled.length;
  const heldByProviderId = new Map(held.map((h) => [h.providerInfractionId, h]));
  for (const p of pulled) {
    const ours = heldByProviderId.get(p.id);
    const outcome = OUTCOME_OF[p.status];
    if (ours && outcome) decided.push({ infractionId: ours.id, outcome });
  }
  for (const p of pulled) {
    // Decided or cancelled at the PSP before we learnt of it (Efí: ACEITA, REJEITADA,
    // CANCELADA_EFI): nothing to analyse, and no money of the merchant's to block for it.
    if (p.status !== 'OPEN') continue;
    const charge = await chargeStore.chargeOfEndToEndId(sequelize, p.endToEndId);
    const attribution = attributeInfraction(connectionId, charge);
    if (attribution.kind === 'NO_CHARGE') {
      result.unmatched++;
      continue;
    }
    if (attribution.kind === 'OTHER_ACCOUNT') {
      // Already stored from the account that received it: that account's list showed it too.
      if (await medInfractionStore.isStored(sequelize, p.id)) continue;
      result.otherAccount++;
      deps.logger.warn(
        {
          providerInfractionId: p.id,
          readFrom: connectionId ?? 'platform',
          chargeId: attribution.charge.id,
          chargeAccount: attribution.charge.pspConnectionId ?? 'platform',
        },
        'MED sync: an infraction names a charge received at another PSP account; not attributed to its merchant',
      );
      continue;
    }
    const { charge: disputed } = attribution;
    const id = crypto.randomUUID();
    const openedAt = new Date(p.openedAt);
    const inserted = await medInfractionStore.insertInfraction(sequelize, {
      id,
      providerInfractionId: p.id,
      merchantId: disputed.merchantId,
      pspConnectionId: connectionId,
      chargeId: disputed.id,
      endToEndId: p.endToEndId,
      // A PSP that does not say how much is disputed disputes the whole payment.
      disputedCents: p.amountCents ?? disputed.amountCents,
      reason: p.reason,
      openedAt,
      // Our deadline (MED_ANALYSIS_DEADLINE) from when we learn of it, never after the provider's.
      deadlineAt: new Date(Math.min(Date.now() + input.analysisDeadlineMs, Date.parse(p.analysisDeadline))),
    });
    if (inserted) {
      result.created++;
      if (!input.merchantId || input.merchantId === disputed.merchantId) result.createdIds.push(id);
    }
  }
}

async function startOpenInfractions(deps: MedActivityDeps, input: MedSyncInput): Promise<void> {
  const open = await medInfractionStore.openInfractions(deps.sequelize);
  const ctx = Context.current();
  for (const row of open) {
    try {
      await startWorkflow(ctx.client, medInfractionWorkflow, {
        workflowId: medInfractionWorkflowId(row.id),
        taskQueue: ctx.info.taskQueue,
        args: [
          {
            infractionId: row.id,
            merchantId: row.merchantId,
            deadlineAt: row.deadlineAt.toISOString(),
            reminderBeforeMs: input.reminderBeforeMs,
          } satisfies MedInfractionInput,
        ],
        typedSearchAttributes: [
          { key: MerchantIdKey, value: row.merchantId },
          { key: BusinessStatusKey, value: 'OPEN' },
        ],
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
  }
}

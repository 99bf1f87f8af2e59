import crypto from 'node:crypto';
import { Context } from '@temporalio/activity';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { BusinessStatusKey, MerchantIdKey } from '../../core/temporal/searchAttributes';
import { startWorkflow } from '../../core/temporal/workflows';
import { chargeStore } from '../../db/charges';
import { medInfractionStore } from '../../db/med';
import { medInfractionWorkflow, medInfractionWorkflowId } from '../../workflows/med/definitions';
import type { MedInfractionInput, MedSyncInput, MedSyncResult } from '../../workflows/med/types';
import { infractionProvider, type MedActivityDeps } from './infraction';

/**
 * Pulls the provider's infractions, inserts the new ones (unique provider id), each matched to
 * our charge by endToEndId (its merchant), and starts one medInfraction workflow for every OPEN
 * one (already started: fine). An infraction we have no charge for is counted, not stored.
 */
export async function syncMedInfractions(deps: MedActivityDeps, input: MedSyncInput): Promise<MedSyncResult> {
  const result = await storeNewInfractions(deps, input);
  await startOpenInfractions(deps, input);
  return result;
}

async function storeNewInfractions(deps: MedActivityDeps, input: MedSyncInput): Promise<MedSyncResult> {
  const { sequelize } = deps;
  const newest = await medInfractionStore.newestOpenedAt(sequelize);
  // A minute back from the newest we have: the provider's clock and ours may differ a little; duplicates are ignored.
  const since = newest ? new Date(newest.getTime() - 60_000).toISOString() : new Date(0).toISOString();
  const pulled = await infractionProvider(deps).listInfractions(since);
  const result: MedSyncResult = { pulled: pulled.length, created: 0, unmatched: 0, createdIds: [] };
  for (const p of pulled) {
    // Decided or cancelled at the PSP before we learnt of it (Efí: ACEITA, REJEITADA,
    // CANCELADA_EFI): nothing to analyse, and no money of the merchant's to block for it.
    if (p.status !== 'OPEN') continue;
    const charge = await chargeStore.chargeOfEndToEndId(sequelize, p.endToEndId);
    if (!charge) {
      result.unmatched++;
      continue;
    }
    const id = crypto.randomUUID();
    const openedAt = new Date(p.openedAt);
    const inserted = await medInfractionStore.insertInfraction(sequelize, {
      id,
      providerInfractionId: p.id,
      merchantId: charge.merchantId,
      chargeId: charge.id,
      endToEndId: p.endToEndId,
      // A PSP that does not say how much is disputed disputes the whole payment.
      disputedCents: p.amountCents ?? charge.amountCents,
      reason: p.reason,
      openedAt,
      // Our deadline (MED_ANALYSIS_DEADLINE) from when we learn of it, never after the provider's.
      deadlineAt: new Date(Math.min(Date.now() + input.analysisDeadlineMs, Date.parse(p.analysisDeadline))),
    });
    if (inserted) {
      result.created++;
      if (!input.merchantId || input.merchantId === charge.merchantId) result.createdIds.push(id);
    }
  }
  return result;
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

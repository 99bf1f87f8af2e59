/**
 * Pix infraction (MED) activities. Every state change of an infraction and the money move it
 * causes (block, unblock) and its event are written in one DB transaction under a lock on the
 * infraction row, keyed by ledger movement key and outbox dedup key, so a retried activity
 * changes nothing twice. The devolução of an accepted infraction is the refund flow's
 * (workflows/refunds), not ours: there is one transfer path.
 */
import crypto from 'node:crypto';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { Sequelize, Transaction } from 'sequelize';
import { accounts } from '../../core/ledger/accounts';
import { move, movements } from '../../core/ledger/postings';
import { isInfractionProvider, ProviderError, type PixProvider } from '../../core/provider';
import { chargeStore } from '../../db/charges';
import { balanceStore } from '../../db/ledger';
import { medInfractionStore, presentInfraction, type MedInfractionRow } from '../../db/med';
import { refundStore } from '../../db/refunds';
import { paidMoney } from '../../core/refunds/paid';
import { startWorkflow } from '../../core/temporal/workflows';
import { medInfractionWorkflow, medInfractionWorkflowId } from '../../workflows/med/definitions';
import type { MedDecisionRequest, MedInfractionInput, MedSyncInput, MedSyncResult } from '../../workflows/med/types';
import { BusinessStatusKey, MerchantIdKey } from '../../core/temporal/searchAttributes';
import { writeLedgerEntry } from '../ledger/ledgerWriter';
import { recordEvent } from '../events/outbox';

export interface MedActivityDeps {
  sequelize: Sequelize;
  provider: PixProvider;
}

/** The disputed money leaves the merchant's available balance while the infraction is open (available → blocked). */
function block(row: MedInfractionRow, cents: number) {
  const { merchantAvailable, merchantBlocked } = accounts;
  return move(
    movements.medInfraction(row.id).block,
    merchantAvailable(row.merchant_id),
    merchantBlocked(row.merchant_id),
    cents,
  );
}

/** It comes back (blocked → available): rejected, nothing left to return, or its devolução not made. */
function unblock(row: MedInfractionRow, cents: number) {
  const { merchantAvailable, merchantBlocked } = accounts;
  return move(
    movements.medInfraction(row.id).unblock,
    merchantBlocked(row.merchant_id),
    merchantAvailable(row.merchant_id),
    cents,
  );
}

export function createMedActivities(deps: MedActivityDeps) {
  const { sequelize, provider } = deps;

  function infractionProvider() {
    if (!isInfractionProvider(provider))
      throw ApplicationFailure.nonRetryable('the provider does not report Pix infractions', 'MedUnsupported');
    return provider;
  }

  async function event(
    type: string,
    row: MedInfractionRow,
    transaction: Transaction,
    dedupKey?: string,
  ): Promise<void> {
    await recordEvent(
      {
        type,
        merchantId: row.merchant_id,
        aggregateType: 'med_infraction',
        aggregateId: row.id,
        dedupKey,
        payload: { ...presentInfraction(row) },
      },
      transaction,
    );
  }

  async function locked<T>(
    infractionId: string,
    fn: (row: MedInfractionRow, transaction: Transaction) => Promise<T>,
  ): Promise<T> {
    return sequelize.transaction(async (transaction) => {
      const row = await medInfractionStore.findInfraction(sequelize, infractionId, { transaction, lock: true });
      if (!row) throw ApplicationFailure.nonRetryable(`infraction ${infractionId} not found`, 'MedStateConflict');
      return fn(row, transaction);
    });
  }

  /**
   * Pulls the provider's infractions, inserts the new ones (unique provider id), each matched to
   * our charge by endToEndId (its merchant), and starts one medInfraction workflow for every OPEN
   * one (already started: fine). An infraction we have no charge for is counted, not stored.
   */
  async function syncMedInfractions(input: MedSyncInput): Promise<MedSyncResult> {
    const newest = await medInfractionStore.newestOpenedAt(sequelize);
    // A minute back from the newest we have: the provider's clock and ours may differ a little; duplicates are ignored.
    const since = newest ? new Date(newest.getTime() - 60_000).toISOString() : new Date(0).toISOString();
    const pulled = await infractionProvider().listInfractions(since);
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
    const open = await medInfractionStore.openInfractions(sequelize);
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
    return result;
  }

  /**
   * Blocks the disputed amount (available → blocked), once. When the available balance does not
   * cover it, what is available is blocked and blocked_cents says how much: a balance never goes
   * negative. Records med.infraction.opened.
   */
  async function blockMedInfraction(args: { infractionId: string }): Promise<{ blockedCents: number }> {
    return locked(args.infractionId, async (row, transaction) => {
      if (row.blocked_at) return { blockedCents: Number(row.blocked_cents) };
      const available = await balanceStore.lockedBalance(
        sequelize,
        accounts.merchantAvailable(row.merchant_id),
        transaction,
      );
      const blockedCents = Math.max(0, Math.min(Number(row.disputed_cents), available ?? 0));
      if (blockedCents > 0) await writeLedgerEntry(sequelize, block(row, blockedCents), transaction);
      const updated = await medInfractionStore.markBlocked(sequelize, row.id, blockedCents, transaction);
      await event('med.infraction.opened', updated, transaction);
      return { blockedCents };
    });
  }

  async function remindMedDeadline(args: { infractionId: string }): Promise<void> {
    await locked(args.infractionId, async (row, transaction) => {
      if (row.status === 'OPEN') await event('med.infraction.deadline_approaching', row, transaction);
    });
  }

  /** Sends the analysis to the provider (idempotent there). A provider that already holds another answer is a conflict for a person. */
  async function answerMedAtProvider(args: {
    infractionId: string;
    decision: MedDecisionRequest['decision'];
    justification: string;
  }): Promise<void> {
    const row = await medInfractionStore.findInfraction(sequelize, args.infractionId);
    if (!row) throw ApplicationFailure.nonRetryable(`infraction ${args.infractionId} not found`, 'MedStateConflict');
    try {
      await infractionProvider().answerInfraction(row.provider_infraction_id, {
        decision: args.decision,
        justification: args.justification,
      });
    } catch (err) {
      if (err instanceof ProviderError && !err.transient)
        throw ApplicationFailure.nonRetryable(`provider refused the analysis: ${err.code}`, 'MedStateConflict');
      throw err;
    }
  }

  /**
   * Records the decision. REJECT: the block is released (blocked → available) and
   * med.infraction.rejected recorded. ACCEPT: med.infraction.accepted recorded and the refund id
   * set; the block stays until the refund's reservation consumes it. Idempotent: a decided row
   * answers what it holds.
   */
  async function recordMedDecision(
    args: MedDecisionRequest & { infractionId: string; refundId: string },
  ): Promise<{ status: string; refundId: string | null; chargeId: string; amountCents: number; reason: string }> {
    return locked(args.infractionId, async (row, transaction) => {
      const answer = (r: MedInfractionRow) => ({
        status: r.status,
        refundId: r.refund_id,
        chargeId: r.charge_id,
        amountCents: Number(r.refund_cents ?? 0),
        reason: r.reason,
      });
      if (row.status !== 'OPEN') return answer(row);
      const common = { decision: args.decision, justification: args.justification, decidedBy: args.decidedBy };
      if (args.decision === 'REJECT') {
        const blocked = Number(row.blocked_cents);
        if (blocked > 0) await writeLedgerEntry(sequelize, unblock(row, blocked), transaction);
        const updated = await medInfractionStore.recordRejected(sequelize, row.id, common, transaction);
        await event('med.infraction.rejected', updated, transaction);
        return answer(updated);
      }
      // The devolução returns the disputed amount, or what is left to return of the payment when
      // earlier refunds already gave part of it back (the refund flow would refuse more).
      const charge = await chargeStore.findCharge(row.charge_id, transaction);
      const refundable = charge
        ? paidMoney(charge).amountCents -
          (await refundStore.refundTotal(sequelize, charge.id, 'committed', transaction))
        : 0;
      const amountCents = Math.min(Number(row.disputed_cents), refundable);
      if (amountCents <= 0) {
        // Nothing left to return: the block goes back to available.
        const blocked = Number(row.blocked_cents);
        if (blocked > 0) await writeLedgerEntry(sequelize, unblock(row, blocked), transaction);
        const updated = await medInfractionStore.recordAccepted(sequelize, row.id, common, null, transaction);
        await event('med.infraction.accepted', updated, transaction);
        return answer(updated);
      }
      const updated = await medInfractionStore.recordAccepted(
        sequelize,
        row.id,
        common,
        { refundId: args.refundId, amountCents },
        transaction,
      );
      await event('med.infraction.accepted', updated, transaction);
      return answer(updated);
    });
  }

  /**
   * The devolução's outcome. Anything but SUCCEEDED gives the disputed money back to available:
   * a FAILED refund already released its shares to available (its reservation had unblocked
   * them); a REFUSED one never unblocked, so the block is released here (same movement key:
   * at most one unblock per infraction).
   */
  async function recordMedRefundOutcome(args: { infractionId: string; refundStatus: string }): Promise<void> {
    await locked(args.infractionId, async (row, transaction) => {
      const blocked = Number(row.blocked_cents);
      if (args.refundStatus !== 'SUCCEEDED' && blocked > 0) {
        await writeLedgerEntry(sequelize, unblock(row, blocked), transaction);
      }
      await medInfractionStore.setRefundStatus(sequelize, row.id, args.refundStatus, transaction);
    });
  }

  return {
    syncMedInfractions,
    blockMedInfraction,
    remindMedDeadline,
    answerMedAtProvider,
    recordMedDecision,
    recordMedRefundOutcome,
  };
}

export type MedActivities = ReturnType<typeof createMedActivities>;

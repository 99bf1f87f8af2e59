import { ApplicationFailure } from '@temporalio/activity';
import type { Transaction } from 'sequelize';
import { ProviderError } from '../../core/provider';
import { paidMoney } from '../../core/refunds/paid';
import { chargeStore } from '../../db/charges';
import { medInfractionStore, type MedInfractionRow } from '../../db/med';
import { refundStore } from '../../db/refunds';
import type { MedDecisionRequest } from '../../workflows/med/types';
import { infractionProviderOf, locked, recordInfractionEvent, releaseClaim, type MedActivityDeps } from './infraction';

type Decision = MedDecisionRequest & {
  infractionId: string;
  refundId: string;
  /**
   * MED 2.0 (workflows with the med-psp-outcome patch): a REJECT leaves the case IN_DEFENCE, holds
   * and debts kept, until the PSP decides it (recordMedPspOutcome). Absent: the REJECT releases at
   * once, as for the runs started before.
   */
  pspDecides?: boolean;
};
export type DecisionAnswer = {
  status: string;
  refundId: string | null;
  chargeId: string;
  amountCents: number;
  reason: string;
};

/**
 * Sends the analysis to the provider (idempotent there), through the account the infraction was
 * read from: a connected merchant's infraction is answered with its own connection. A provider
 * that already holds another answer, or a connection revoked since, is a conflict for a person.
 */
export async function answerMedAtProvider(
  deps: MedActivityDeps,
  args: { infractionId: string; decision: MedDecisionRequest['decision']; justification: string },
): Promise<void> {
  const row = await medInfractionStore.findInfraction(deps.sequelize, args.infractionId);
  if (!row) throw ApplicationFailure.nonRetryable(`infraction ${args.infractionId} not found`, 'MedStateConflict');
  try {
    const provider = await infractionProviderOf(deps, row.psp_connection_id);
    await provider.answerInfraction(row.provider_infraction_id, {
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
 * Records the decision. REJECT with `pspDecides`: the case is IN_DEFENCE, nothing moves (the PSP
 * decides; recordMedPspOutcome). REJECT without it (runs started before the PSP decided cases):
 * every party's hold is released (blocked → available) and its debt cancelled, and
 * med.infraction.rejected recorded. ACCEPT: med.infraction.accepted recorded and the
 * refund id set; the holds stay until the refund's reservation consumes them, the debts are paid
 * by the platform at the devolução and stay owed. Idempotent: a decided row answers what it holds.
 */
export async function recordMedDecision(deps: MedActivityDeps, args: Decision): Promise<DecisionAnswer> {
  const { sequelize } = deps;
  return locked(deps, args.infractionId, async (row, transaction) => {
    if (row.status !== 'OPEN') return answerOf(row);
    if (args.decision === 'REJECT' && args.pspDecides)
      return answerOf(await medInfractionStore.recordInDefence(sequelize, row.id, decisionOf(args), transaction));
    if (args.decision === 'REJECT') {
      await releaseClaim(deps, row, transaction);
      const updated = await medInfractionStore.recordRejected(sequelize, row.id, decisionOf(args), transaction);
      await recordInfractionEvent('med.infraction.rejected', updated, transaction);
      return answerOf(updated);
    }
    return recordAccepted(deps, args, row, transaction);
  });
}

async function recordAccepted(
  deps: MedActivityDeps,
  args: Decision,
  row: MedInfractionRow,
  transaction: Transaction,
): Promise<DecisionAnswer> {
  const { sequelize } = deps;
  const amountCents = await devolucaoCents(deps, row, transaction);
  if (amountCents <= 0) {
    // Nothing left to return: the holds go back to available and the debts are cancelled.
    await releaseClaim(deps, row, transaction);
    const updated = await medInfractionStore.recordAccepted(sequelize, row.id, decisionOf(args), null, transaction);
    await recordInfractionEvent('med.infraction.accepted', updated, transaction);
    return answerOf(updated);
  }
  const updated = await medInfractionStore.recordAccepted(
    sequelize,
    row.id,
    decisionOf(args),
    { refundId: args.refundId, amountCents },
    transaction,
  );
  await recordInfractionEvent('med.infraction.accepted', updated, transaction);
  return answerOf(updated);
}

/**
 * What the devolução returns: the disputed amount, or what is left to return of the payment when
 * earlier refunds already gave part of it back (the refund flow would refuse more); 0: nothing left.
 */
export async function devolucaoCents(
  deps: MedActivityDeps,
  row: MedInfractionRow,
  transaction: Transaction,
): Promise<number> {
  const charge = await chargeStore.findCharge(row.charge_id, transaction);
  const refundable = charge
    ? paidMoney(charge).amountCents -
      (await refundStore.refundTotal(deps.sequelize, charge.id, 'committed', transaction))
    : 0;
  return Math.min(Number(row.disputed_cents), refundable);
}

function decisionOf(args: Decision) {
  return { decision: args.decision, justification: args.justification, decidedBy: args.decidedBy };
}

export function answerOf(r: MedInfractionRow): DecisionAnswer {
  return {
    status: r.status,
    refundId: r.refund_id,
    chargeId: r.charge_id,
    amountCents: Number(r.refund_cents ?? 0),
    reason: r.reason,
  };
}

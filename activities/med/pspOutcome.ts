import { medInfractionStore } from '../../db/med';
import type { PspOutcome } from '../../workflows/med/types';
import { answerOf, devolucaoCents, type DecisionAnswer } from './decide';
import { locked, recordInfractionEvent, releaseClaim, type MedActivityDeps } from './infraction';

/** The event each outcome records: the row's status says the same as for the merchant's own decisions. */
const EVENT: Record<PspOutcome, string> = {
  UPHELD: 'med.infraction.accepted',
  DISMISSED: 'med.infraction.rejected',
  CANCELLED: 'med.infraction.cancelled',
};

/**
 * Records what the PSP decided of a case (MED 2.0), in one DB transaction under the row's lock:
 * - UPHELD (a case IN_DEFENCE): ACCEPTED with the devolução exactly as the merchant's ACCEPT sets
 *   it (the refund id, what is left to return; nothing left: the claim released, NOTHING_TO_RETURN);
 *   the holds stay for the refund's reservation, the debts for the platform to advance.
 * - DISMISSED (IN_DEFENCE) → REJECTED, CANCELLED (OPEN or IN_DEFENCE) → CANCELLED: every party's
 *   hold released and its debt cancelled (the same keyed postings as the merchant's REJECT before).
 * The merchant's own decision fields stay. Idempotent: a row no longer held (or an UPHELD/DISMISSED
 * of a case not in defence) answers what it holds and changes nothing.
 */
export async function recordMedPspOutcome(
  deps: MedActivityDeps,
  args: { infractionId: string; outcome: PspOutcome; refundId: string },
): Promise<DecisionAnswer> {
  const { sequelize } = deps;
  return locked(deps, args.infractionId, async (row, transaction) => {
    const applies = args.outcome === 'CANCELLED' ? ['OPEN', 'IN_DEFENCE'] : ['IN_DEFENCE'];
    if (!applies.includes(row.status)) return answerOf(row);
    let refund: { refundId: string; amountCents: number } | null = null;
    if (args.outcome === 'UPHELD') {
      const amountCents = await devolucaoCents(deps, row, transaction);
      if (amountCents > 0) refund = { refundId: args.refundId, amountCents };
    }
    // Nothing to return of an upheld claim ends it as a dismissed one does: released.
    const held = refund ? row : await releaseClaim(deps, row, transaction);
    const updated = await medInfractionStore.recordPspOutcome(sequelize, held.id, args.outcome, refund, transaction);
    await recordInfractionEvent(EVENT[args.outcome], updated, transaction);
    return answerOf(updated);
  });
}

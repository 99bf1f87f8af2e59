/**
 * Pix infraction (MED) activities. Every state change of an infraction and the money move it
 * causes (block, unblock) and its event are written in one DB transaction under a lock on the
 * infraction row (infraction.ts). The devolução of an accepted infraction is the refund flow's
 * (workflows/refunds), not ours: there is one transfer path.
 */
import { answerMedAtProvider, recordMedDecision } from './decide';
import { alertMedDeadline, decisionAtDeadline, type MedDeadlineDeps } from './deadline';
import { blockMedInfraction, remindMedDeadline } from './open';
import { recordMedRefundOutcome } from './outcome';
import { recordMedPspOutcome } from './pspOutcome';
import { syncMedInfractions } from './sync';

export function createMedActivities(deps: MedDeadlineDeps) {
  return {
    syncMedInfractions: (input: Parameters<typeof syncMedInfractions>[1]) => syncMedInfractions(deps, input),
    blockMedInfraction: (args: Parameters<typeof blockMedInfraction>[1]) => blockMedInfraction(deps, args),
    /** Workflows started before the three alerts (no med-deadline-alerts patch): their one reminder. */
    remindMedDeadline: (args: Parameters<typeof remindMedDeadline>[1]) => remindMedDeadline(deps, args),
    alertMedDeadline: (args: Parameters<typeof alertMedDeadline>[1]) => alertMedDeadline(deps, args),
    decisionAtDeadline: (args: Parameters<typeof decisionAtDeadline>[1]) => decisionAtDeadline(deps, args),
    answerMedAtProvider: (args: Parameters<typeof answerMedAtProvider>[1]) => answerMedAtProvider(deps, args),
    recordMedDecision: (args: Parameters<typeof recordMedDecision>[1]) => recordMedDecision(deps, args),
    recordMedRefundOutcome: (args: Parameters<typeof recordMedRefundOutcome>[1]) => recordMedRefundOutcome(deps, args),
    /** MED 2.0: what the PSP decided of a defended case, or its cancellation. */
    recordMedPspOutcome: (args: Parameters<typeof recordMedPspOutcome>[1]) => recordMedPspOutcome(deps, args),
  };
}

export type MedActivities = ReturnType<typeof createMedActivities>;

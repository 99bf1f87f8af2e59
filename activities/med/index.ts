/**
 * Pix infraction (MED) activities. Every state change of an infraction and the money move it
 * causes (block, unblock) and its event are written in one DB transaction under a lock on the
 * infraction row (infraction.ts). The devolução of an accepted infraction is the refund flow's
 * (workflows/refunds), not ours: there is one transfer path.
 */
import { answerMedAtProvider, recordMedDecision } from './decide';
import type { MedActivityDeps } from './infraction';
import { blockMedInfraction, remindMedDeadline } from './open';
import { recordMedRefundOutcome } from './outcome';
import { syncMedInfractions } from './sync';

export function createMedActivities(deps: MedActivityDeps) {
  return {
    syncMedInfractions: (input: Parameters<typeof syncMedInfractions>[1]) => syncMedInfractions(deps, input),
    blockMedInfraction: (args: Parameters<typeof blockMedInfraction>[1]) => blockMedInfraction(deps, args),
    remindMedDeadline: (args: Parameters<typeof remindMedDeadline>[1]) => remindMedDeadline(deps, args),
    answerMedAtProvider: (args: Parameters<typeof answerMedAtProvider>[1]) => answerMedAtProvider(deps, args),
    recordMedDecision: (args: Parameters<typeof recordMedDecision>[1]) => recordMedDecision(deps, args),
    recordMedRefundOutcome: (args: Parameters<typeof recordMedRefundOutcome>[1]) => recordMedRefundOutcome(deps, args),
  };
}

export type MedActivities = ReturnType<typeof createMedActivities>;

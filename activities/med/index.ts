/**
 * Pix infraction (MED) activities. Every state change of an infraction and the money move it
 * causes (block, unblock) and its event are written in one DB transaction under a lock on the
 * infraction row (infraction.ts). The devolução of an accepted infraction is the refund flow's
 * (workflows/refunds), not ours: there is one transfer path.
 */
import type { MedDecisionRequest, MedSyncInput } from '../../workflows/med/types';
import { answerMedAtProvider, recordMedDecision } from './decide';
import type { MedActivityDeps } from './infraction';
import { blockMedInfraction, remindMedDeadline } from './open';
import { recordMedRefundOutcome } from './outcome';
import { syncMedInfractions } from './sync';

export function createMedActivities(deps: MedActivityDeps) {
  return {
    syncMedInfractions: (input: MedSyncInput) => syncMedInfractions(deps, input),
    blockMedInfraction: (args: { infractionId: string }) => blockMedInfraction(deps, args),
    remindMedDeadline: (args: { infractionId: string }) => remindMedDeadline(deps, args),
    answerMedAtProvider: (args: {
      infractionId: string;
      decision: MedDecisionRequest['decision'];
      justification: string;
    }) => answerMedAtProvider(deps, args),
    recordMedDecision: (args: MedDecisionRequest & { infractionId: string; refundId: string }) =>
      recordMedDecision(deps, args),
    recordMedRefundOutcome: (args: { infractionId: string; refundStatus: string }) =>
      recordMedRefundOutcome(deps, args),
  };
}

export type MedActivities = ReturnType<typeof createMedActivities>;

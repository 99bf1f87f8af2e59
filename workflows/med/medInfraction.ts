/**
 * medInfraction (workflow id `med-infraction-<id>`), one per Pix infraction (MED):
 * block the disputed amount → wait for the analysis (decideInfraction update) or the deadline
 * (a reminder event reminderBeforeMs before it; unanswered: DEFAULT_MED_DECISION) → tell the
 * provider → record the decision (REJECT releases the block) → ACCEPT: the devolução through
 * the refund flow (child refundLifecycle; its reservation consumes the block) and its outcome.
 * Once decided everything runs non-cancellable: money decisions are never half applied.
 */
import {
  ApplicationFailure,
  CancellationScope,
  allHandlersFinished,
  condition,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  uuid4,
} from '@temporalio/workflow';
import type { MedActivities } from '../../activities/med';
import { executeChildOf } from '../children';
import { refundLifecycleWorkflow, refundWorkflowId } from '../refunds/definitions';
import { BusinessStatusKey } from '../../core/temporal/searchAttributes';
import { decideInfractionUpdate, infractionStatusQuery } from './definitions';
import {
  DEFAULT_MED_DECISION,
  MedFailureTypes,
  requesterOf,
  type MedDecisionRequest,
  type MedInfractionInput,
} from './types';

const acts = proxyActivities<MedActivities>({
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '5 minutes',
    nonRetryableErrorTypes: ['MedStateConflict', 'MedUnsupported'],
  },
});

export async function medInfraction(input: MedInfractionInput): Promise<{ infractionId: string; status: string }> {
  let status = 'OPEN';
  let decision: MedDecisionRequest | undefined;
  let recorded = false;
  const setStatus = (next: string) => {
    status = next;
    upsertSearchAttributes([{ key: BusinessStatusKey, value: next }]);
  };

  setHandler(infractionStatusQuery, () => status);
  setHandler(
    decideInfractionUpdate,
    async (request) => {
      decision ??= request;
      await condition(() => recorded);
    },
    {
      validator: (request: MedDecisionRequest) => {
        if (request.decision !== 'ACCEPT' && request.decision !== 'REJECT')
          throw ApplicationFailure.nonRetryable('decision must be ACCEPT or REJECT', 'InvalidDecision');
        if (decision)
          throw ApplicationFailure.nonRetryable('this infraction was already decided', MedFailureTypes.alreadyDecided);
      },
    },
  );

  await CancellationScope.nonCancellable(() => acts.blockMedInfraction({ infractionId: input.infractionId }));

  const deadline = Date.parse(input.deadlineAt);
  const untilReminder = deadline - input.reminderBeforeMs - Date.now();
  // condition() with a timeout ≤ 0 would not wait at all; 1 ms is "already due".
  if (!(await condition(() => decision !== undefined, Math.max(1, untilReminder)))) {
    await acts.remindMedDeadline({ infractionId: input.infractionId });
    if (!(await condition(() => decision !== undefined, Math.max(1, deadline - Date.now()))))
      decision = DEFAULT_MED_DECISION;
  }
  const chosen = decision as MedDecisionRequest;

  await CancellationScope.nonCancellable(async () => {
    await acts.answerMedAtProvider({
      infractionId: input.infractionId,
      decision: chosen.decision,
      justification: chosen.justification,
    });
    const refundId = uuid4();
    const result = await acts.recordMedDecision({ infractionId: input.infractionId, ...chosen, refundId });
    recorded = true;
    setStatus(result.status);
    if (result.status !== 'ACCEPTED' || !result.refundId) return;
    const outcome = await executeChildOf(refundLifecycleWorkflow, {
      workflowId: refundWorkflowId(result.refundId),
      args: [
        {
          refundId: result.refundId,
          chargeId: result.chargeId,
          amountCents: result.amountCents,
          reason: `MED infraction (${result.reason})`,
          idempotencyKey: null,
          requestedBy: requesterOf(chosen.decidedBy),
          medInfractionId: input.infractionId,
        },
      ],
    });
    await acts.recordMedRefundOutcome({ infractionId: input.infractionId, refundStatus: outcome.status });
  });
  await condition(allHandlersFinished);
  return { infractionId: input.infractionId, status };
}

/**
 * medInfraction (workflow id `med-infraction-<id>`), one per Pix infraction (MED):
 * block the disputed amount → wait for the analysis (decideInfraction update) or the PSP's
 * deadline (alerts 48, 24 and 6 h before it: core/med/deadlineAlerts.ts; unanswered: the
 * merchant's stored defence, else DEFAULT_MED_DECISION) → tell the
 * provider → record the decision (REJECT releases the block) → ACCEPT: the devolução through
 * the refund flow (child refundLifecycle; its reservation consumes the block) and its outcome.
 * Once decided everything runs non-cancellable: money decisions are never half applied.
 *
 * MED 2.0 (patch med-psp-outcome): the receiving PSP decides a defended case. After a REJECT the
 * case is IN_DEFENCE (holds and debts stay, recovery goes on) and the workflow waits for the PSP's
 * outcome (pspOutcome signal, sent by the MED sync): UPHELD → the devolução as after an ACCEPT;
 * DISMISSED or CANCELLED → everything released. A CANCELLED while still OPEN (before any answer)
 * ends the case released too. The wait is one condition with no timer: the history grows by the
 * signals only (one per sync that saw the decision before it was recorded), so a case lasting the
 * whole 80-day window stays a few dozen events and needs no continue-as-new.
 */
import {
  ApplicationFailure,
  CancellationScope,
  allHandlersFinished,
  condition,
  patched,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  uuid4,
} from '@temporalio/workflow';
import type { MedActivities } from '../../activities/med';
import { executeChildOf } from '../children';
import { refundLifecycleWorkflow, refundWorkflowId } from '../refunds/definitions';
import { answerAtMs, plannedAlerts } from '../../core/med/deadlineAlerts';
import { BusinessStatusKey } from '../../core/temporal/searchAttributes';
import { decideInfractionUpdate, infractionStatusQuery, pspOutcomeSignal } from './definitions';
import {
  DEFAULT_MED_DECISION,
  MedFailureTypes,
  requesterOf,
  type MedDecisionRequest,
  type MedInfractionInput,
  type PspOutcome,
} from './types';

/**
 * Three alerts (48, 24, 6 h) before the PSP's deadline and the answer at the deadline from the
 * stored defence (issue 38), instead of one reminder and the default decision: histories recorded
 * before it replay the old path.
 */
const MED_DEADLINE_ALERTS_PATCH = 'med-deadline-alerts';

/**
 * The PSP decides a defended case (IN_DEFENCE, then its outcome) and may cancel an open one,
 * instead of the REJECT releasing everything at once: histories recorded before replay the old path.
 */
const MED_PSP_OUTCOME_PATCH = 'med-psp-outcome';

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
  /** The PSP's outcome, once signalled (the first one counts). */
  let pspOutcome: PspOutcome | undefined;
  /** Whether this run follows MED 2.0's PSP decisions (the med-psp-outcome patch; read after the block). */
  let pspDecides = false;
  // The PSP cancelled the case before it was answered there: nothing more to wait for, nor to answer.
  const cancelledAtPsp = () => pspDecides && pspOutcome === 'CANCELLED';
  const setStatus = (next: string) => {
    status = next;
    upsertSearchAttributes([{ key: BusinessStatusKey, value: next }]);
  };

  setHandler(infractionStatusQuery, () => status);
  setHandler(pspOutcomeSignal, ({ outcome }) => {
    pspOutcome ??= outcome;
  });
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
        if (decision || cancelledAtPsp())
          throw ApplicationFailure.nonRetryable('this infraction was already decided', MedFailureTypes.alreadyDecided);
      },
    },
  );

  await CancellationScope.nonCancellable(() => acts.blockMedInfraction({ infractionId: input.infractionId }));
  pspDecides = patched(MED_PSP_OUTCOME_PATCH);

  const deadline = Date.parse(input.deadlineAt);
  const decided = () => decision !== undefined || cancelledAtPsp();
  // condition() with a timeout ≤ 0 would not wait at all; 1 ms is "already due".
  const waitUntil = (at: number) => condition(decided, Math.max(1, at - Date.now()));
  if (patched(MED_DEADLINE_ALERTS_PATCH)) {
    // The alerts 48, 24 and 6 h before the PSP's deadline (those already passed when the case is
    // read: only the nearest, at once), then, unanswered, the answer given for the merchant just
    // before the deadline (after it the PSP refuses it).
    const answerAt = answerAtMs(deadline, Date.now());
    for (const alert of plannedAlerts(deadline, Date.now())) {
      if (await waitUntil(alert.atMs)) break;
      await acts.alertMedDeadline({ infractionId: input.infractionId, hoursLeft: alert.hoursLeft });
    }
    if (!decided() && !(await waitUntil(answerAt))) {
      const atDeadline = await acts.decisionAtDeadline({ infractionId: input.infractionId });
      // An analysis that arrived while that was read wins: its update is waiting for it.
      decision ??= atDeadline;
    }
  } else {
    // Workflows started before the three alerts: their one reminder, then the default decision.
    const untilReminder = deadline - input.reminderBeforeMs - Date.now();
    if (!(await condition(decided, Math.max(1, untilReminder)))) {
      await acts.remindMedDeadline({ infractionId: input.infractionId });
      if (!(await waitUntil(deadline))) decision = DEFAULT_MED_DECISION;
    }
  }
  if (cancelledAtPsp()) {
    // Cancelled while OPEN (a decision taken meanwhile is not sent: the PSP would refuse it).
    await CancellationScope.nonCancellable(async () => {
      const result = await acts.recordMedPspOutcome({
        infractionId: input.infractionId,
        outcome: 'CANCELLED',
        refundId: uuid4(),
      });
      recorded = true;
      setStatus(result.status);
    });
    await condition(allHandlersFinished);
    return { infractionId: input.infractionId, status };
  }
  const chosen = decision as MedDecisionRequest;

  await CancellationScope.nonCancellable(async () => {
    await acts.answerMedAtProvider({
      infractionId: input.infractionId,
      decision: chosen.decision,
      justification: chosen.justification,
    });
    const refundId = uuid4();
    let result = await acts.recordMedDecision({
      infractionId: input.infractionId,
      ...chosen,
      refundId,
      ...(pspDecides ? { pspDecides: true } : {}),
    });
    recorded = true;
    setStatus(result.status);
    if (result.status === 'IN_DEFENCE') {
      // The PSP decides the defence: holds and debts stay (recovery goes on) until it does.
      await condition(() => pspOutcome !== undefined);
      result = await acts.recordMedPspOutcome({
        infractionId: input.infractionId,
        outcome: pspOutcome as PspOutcome,
        refundId: uuid4(),
      });
      setStatus(result.status);
    }
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
          // Upheld by the PSP: no user of ours asked for this devolução.
          requestedBy: pspOutcome === 'UPHELD' && chosen.decision === 'REJECT' ? null : requesterOf(chosen.decidedBy),
          medInfractionId: input.infractionId,
        },
      ],
    });
    await acts.recordMedRefundOutcome({ infractionId: input.infractionId, refundStatus: outcome.status });
  });
  await condition(allHandlersFinished);
  return { infractionId: input.infractionId, status };
}

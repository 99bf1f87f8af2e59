/** Messages of the medInfraction workflow, defined once and shared by the workflow and the API. */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { defineWorkflow } from '../defineWorkflow';
import type { medInfraction } from './medInfraction';
import type { medInfractionSync } from './medInfractionSync';
import type { MedDecisionRequest, PspOutcomeSignal } from './types';

/** The analysis: answers once the decision is recorded (REJECT: block released; ACCEPT: devolução started). */
export const decideInfractionUpdate = defineUpdate<void, [MedDecisionRequest]>('decideInfraction');
export const infractionStatusQuery = defineQuery<string>('status');
/**
 * The PSP decided or cancelled the case (sent by the MED sync, activities/med/sync.ts, each time it
 * sees the decision while the case is held here; the first one counts, the others are ignored).
 */
export const pspOutcomeSignal = defineSignal<[PspOutcomeSignal]>('pspOutcome');

export const medInfractionWorkflow = defineWorkflow<typeof medInfraction>('medInfraction').handles(
  decideInfractionUpdate,
  infractionStatusQuery,
  pspOutcomeSignal,
);
/** Reads the provider's infractions and starts a medInfraction for each open one (Schedule and POST /med/infractions/sync). */
export const medInfractionSyncWorkflow = defineWorkflow<typeof medInfractionSync>('medInfractionSync');

export const medInfractionWorkflowId = (infractionId: string) => `med-infraction-${infractionId}`;
/** One per task queue (deployment), like the outbox dispatcher: its runs go to that queue's workers. */
export const medSyncScheduleId = (taskQueue: string) => `med-infraction-sync-${taskQueue}`;

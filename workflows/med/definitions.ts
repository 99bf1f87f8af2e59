/** Messages of the medInfraction workflow, defined once and shared by the workflow and the API. */
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import { defineWorkflow } from '../defineWorkflow';
import type { medInfraction } from './medInfraction';
import type { medInfractionSync } from './medInfractionSync';
import type { MedDecisionRequest } from './types';

/** The analysis: answers once the decision is recorded (REJECT: block released; ACCEPT: devolução started). */
export const decideInfractionUpdate = defineUpdate<void, [MedDecisionRequest]>('decideInfraction');
export const infractionStatusQuery = defineQuery<string>('status');

export const medInfractionWorkflow = defineWorkflow<typeof medInfraction>('medInfraction').handles(
  decideInfractionUpdate,
  infractionStatusQuery,
);
/** Reads the provider's infractions and starts a medInfraction for each open one (Schedule and POST /med/infractions/sync). */
export const medInfractionSyncWorkflow = defineWorkflow<typeof medInfractionSync>('medInfractionSync');

export const medInfractionWorkflowId = (infractionId: string) => `med-infraction-${infractionId}`;
/** One per task queue (deployment), like the outbox dispatcher: its runs go to that queue's workers. */
export const medSyncScheduleId = (taskQueue: string) => `med-infraction-sync-${taskQueue}`;

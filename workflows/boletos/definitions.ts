/** Messages of BoletoBatch, defined once and shared by the workflow and the API. */
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import { defineWorkflow } from '../defineWorkflow';
import type { boletoBatch } from './boletoBatch';
import type { BoletoBatchAccepted } from './types';

/** Update-With-Start target: answers once the run has read the stored batch and its item rows. */
export const acceptBoletoBatchUpdate = defineUpdate<BoletoBatchAccepted>('acceptBoletoBatch');
export const boletoBatchProgressQuery = defineQuery<{ phase: string; done: number; itemsCount: number }>('progress');

export const boletoBatchWorkflow = defineWorkflow<typeof boletoBatch>('boletoBatch').handles(
  acceptBoletoBatchUpdate,
  boletoBatchProgressQuery,
);

export const boletoBatchWorkflowId = (batchId: string) => `boleto-batch-${batchId}`;

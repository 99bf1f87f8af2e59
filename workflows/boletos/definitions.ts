/** Messages of BoletoBatch, defined once and shared by the workflow and the API. */
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { BoletoBatchAccepted } from './types';

/** Update-With-Start target: answers once the run has read the stored batch and its item rows. */
export const acceptBoletoBatchUpdate = defineUpdate<BoletoBatchAccepted>('acceptBoletoBatch');
export const boletoBatchProgressQuery = defineQuery<{ phase: string; done: number; itemsCount: number }>('progress');

export const boletoBatchWorkflowId = (batchId: string) => `boleto-batch-${batchId}`;

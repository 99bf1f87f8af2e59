/** Messages of PayoutBatch, defined once and shared by the workflow and the API. */
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { BatchOutcome, BatchProgress, BatchReservation } from './types';

/** Update-With-Start target: answers once the batch's funding is reserved in the ledger. */
export const reserveBatchUpdate = defineUpdate<BatchReservation>('reserveBatch');
/** Stops unsent items, releases their funding, and answers with the released amount. */
export const cancelBatchUpdate = defineUpdate<BatchOutcome, [{ reason: string }]>('cancelBatch');
export const batchProgressQuery = defineQuery<BatchProgress>('progress');

export const payoutBatchWorkflowId = (batchId: string) => `payout-batch-${batchId}`;

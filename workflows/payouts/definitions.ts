/** Messages of PayoutBatch, defined once and shared by the workflow and the API. */
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import { defineWorkflow } from '../defineWorkflow';
import type { payoutBatch } from './payoutBatch';
import type { payoutChunk } from './payoutChunk';
import type { BatchOutcome, BatchProgress, BatchReservation } from './types';

/** Update-With-Start target: answers once the batch's funding is reserved in the ledger. */
export const reserveBatchUpdate = defineUpdate<BatchReservation>('reserveBatch');
/** Stops unsent items, releases their funding, and answers with the released amount. */
export const cancelBatchUpdate = defineUpdate<BatchOutcome, [{ reason: string }]>('cancelBatch');
export const batchProgressQuery = defineQuery<BatchProgress>('progress');

export const payoutBatchWorkflow = defineWorkflow<typeof payoutBatch>('payoutBatch').handles(
  reserveBatchUpdate,
  cancelBatchUpdate,
  batchProgressQuery,
);
/**
 * A batch's child: pays one range of its rows. payoutBatch.ts starts it with
 * `executeChild(payoutChunk, …)`, which records the same type name this definition holds, so no
 * product code reads it; it exists because every exported workflow has exactly one definition
 * (test/unit/workflowDefinitions.test.ts checks its name against workflows/index.ts), and a start
 * by definition (`executeChildOf` in workflows/children.ts) would take it.
 */
export const payoutChunkWorkflow = defineWorkflow<typeof payoutChunk>('payoutChunk');

export const payoutBatchWorkflowId = (batchId: string) => `payout-batch-${batchId}`;

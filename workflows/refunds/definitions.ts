/** Messages of RefundLifecycle, defined once and shared by the workflow and the API. */
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import { defineWorkflow } from '../defineWorkflow';
import type { refundLifecycle } from './refundLifecycle';
import type { RefundPhase, ReservedRefund } from './types';

/** Update-With-Start target: answers once the refund's shares are reserved (or why not). */
export const requestRefundUpdate = defineUpdate<ReservedRefund>('requestRefund');
export const refundStatusQuery = defineQuery<RefundPhase>('status');

export const refundLifecycleWorkflow = defineWorkflow<typeof refundLifecycle>('refundLifecycle').handles(
  requestRefundUpdate,
  refundStatusQuery,
);

export const refundWorkflowId = (refundId: string) => `refund-${refundId}`;

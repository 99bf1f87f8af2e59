/** Messages of RefundLifecycle, defined once and shared by the workflow and the API. */
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { RefundPhase, ReservedRefund } from './types';

/** Update-With-Start target: answers once the refund's shares are reserved (or why not). */
export const requestRefundUpdate = defineUpdate<ReservedRefund>('requestRefund');
export const refundStatusQuery = defineQuery<RefundPhase>('status');

export const refundWorkflowId = (refundId: string) => `refund-${refundId}`;

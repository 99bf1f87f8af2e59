/** Messages of the withdrawal workflow, defined once and shared by the workflow and the API. */
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { ReservedWithdrawal, WithdrawalPhase } from './types';

/** Update-With-Start target: answers once amount + fee are reserved (or fails with the refusal). */
export const requestWithdrawalUpdate = defineUpdate<ReservedWithdrawal>('requestWithdrawal');
export const withdrawalStatusQuery = defineQuery<WithdrawalPhase>('status');

export const withdrawalWorkflowId = (withdrawalId: string) => `withdrawal-${withdrawalId}`;

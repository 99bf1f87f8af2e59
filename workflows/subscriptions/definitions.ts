/** The subscriptionLifecycle workflow and its messages, defined once and shared by the workflow and the API. */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { defineWorkflow } from '../defineWorkflow';
import type { subscriptionLifecycle } from './subscriptionLifecycle';
import type { CycleNotice, PreparedSubscription, SubscriptionStatusView } from './types';

/**
 * Update-With-Start target: answers once the recurrence exists at the PSP (rec, its location or its
 * solicrec) and the subscription row holds what the payer is shown, or fails with the reason.
 */
export const prepareSubscriptionUpdate = defineUpdate<PreparedSubscription>('prepareSubscription');
/** webhookrec named this subscription's rec: read it (GET /rec/{idRec}) and act on what the PSP says. */
export const recurrenceNoticeSignal = defineSignal('recurrenceNotice');
/** webhookcobr (or a Pix received) named one of its cycles' cobr: read it (GET /cobr/{txid}). */
export const cycleNoticeSignal = defineSignal<[CycleNotice]>('cycleNotice');
/** The merchant cancels: the rec (and an open cobr) cancelled at the PSP, then CANCELLED; answers the state after. */
export const cancelSubscriptionUpdate = defineUpdate<SubscriptionStatusView>('cancelSubscription');
export const subscriptionStatusQuery = defineQuery<SubscriptionStatusView>('status');

export const subscriptionLifecycleWorkflow = defineWorkflow<typeof subscriptionLifecycle>(
  'subscriptionLifecycle',
).handles(
  prepareSubscriptionUpdate,
  recurrenceNoticeSignal,
  cycleNoticeSignal,
  cancelSubscriptionUpdate,
  subscriptionStatusQuery,
);

export const subscriptionWorkflowId = (subscriptionId: string) => `subscription-${subscriptionId}`;

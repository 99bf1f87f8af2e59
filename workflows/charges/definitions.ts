/** ChargeLifecycle and SettleLatePayment and their messages, defined once and shared by the workflow and the API. */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { defineWorkflow } from '../defineWorkflow';
import type { chargeLifecycle } from './chargeLifecycle';
import type { settleLatePayment } from './latePayment';
import type { PaymentConfirmation } from '../../core/charges/paymentConfirmation';
import type { ChargePhase, IssuedCharge } from './types';

/** Update-With-Start target: answers once the Pix payload exists (or fails with the reason). */
// Issues the charge, Pix or boleto. The update keeps its first name, 'issuePix': running charges
// (they live for days) and their histories answer to it.
export const issueChargeUpdate = defineUpdate<IssuedCharge>('issuePix');
/** The provider confirmed a payment (sent by the provider callback route). */
export const paymentConfirmedSignal = defineSignal<[PaymentConfirmation]>('paymentConfirmed');
/** Cancels a pending charge and answers with the final status (PAID if a payment won the race). */
export const cancelChargeUpdate = defineUpdate<ChargePhase, [{ reason: string }]>('cancelCharge');
export const chargeStatusQuery = defineQuery<ChargePhase>('status');

export const chargeLifecycleWorkflow = defineWorkflow<typeof chargeLifecycle>('chargeLifecycle').handles(
  issueChargeUpdate,
  paymentConfirmedSignal,
  cancelChargeUpdate,
  chargeStatusQuery,
);
/** Settles a payment the provider confirmed after the charge's own run closed it (expired or cancelled). */
export const settleLatePaymentWorkflow = defineWorkflow<typeof settleLatePayment>('settleLatePayment');

export const chargeWorkflowId = (chargeId: string) => `charge-${chargeId}`;
/** `paymentKey` is core/pix/endToEndKey of the claimed endToEndId: provider text never goes into an id unchecked. */
export const latePaymentWorkflowId = (chargeId: string, paymentKey: string) =>
  `charge-late-payment-${chargeId}-${paymentKey}`;

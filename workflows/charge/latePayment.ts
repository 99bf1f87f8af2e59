/**
 * Settles a payment the provider confirmed after the charge's lifecycle workflow had closed
 * (expired or cancelled). The payer's money did arrive, so it is credited, never dropped; the
 * charge is marked PAID with paidAfterExpiry=true so the merchant can refund it if they wish.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { ChargeActivities } from '../../activities/charges';
import type { PaymentConfirmation } from './types';

const settling = proxyActivities<ChargeActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes' },
});

export async function settleLatePayment(args: { chargeId: string; payment: PaymentConfirmation }): Promise<void> {
  await settling.settleChargePaid({ chargeId: args.chargeId, payment: args.payment });
}

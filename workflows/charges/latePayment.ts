/**
 * Settles a payment the provider confirmed after the charge's lifecycle had closed it (expired
 * or cancelled), or while it was closing. Like every settlement it asks the provider first: the
 * payer's money did arrive, so it is credited, never dropped, and the charge is marked PAID with
 * paidAfterExpiry=true so the merchant can refund it if they wish. A claim the provider does not
 * back up credits nothing and is left in payment_alerts.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { ChargeActivities } from '../../activities/charges';
import type { PaymentConfirmation } from '../../core/charges/paymentConfirmation';
import type { SettleOutcome } from './types';

const settling = proxyActivities<ChargeActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes' },
});

export async function settleLatePayment(args: {
  chargeId: string;
  payment: PaymentConfirmation;
}): Promise<SettleOutcome> {
  const { outcome } = await settling.settleChargePaid({ chargeId: args.chargeId, payment: args.payment });
  return outcome;
}

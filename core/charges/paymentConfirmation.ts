/**
 * A payment the provider reported for a charge (a callback, an API Pix notification, the sweep, a
 * boleto's record, a reconciliation): a claim, never what is credited. Settlement reads the
 * provider's own record before it credits anything. Plain JSON: it crosses into the charge's
 * workflows (the paymentConfirmed signal, settleLatePayment's input).
 */
import type { ProviderPayer } from '../provider';

export interface PaymentConfirmation {
  providerChargeId: string;
  endToEndId: string;
  amountCents: number;
  paidAt: string;
  payer: ProviderPayer | null;
}

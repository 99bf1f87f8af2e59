/** A boleto the provider reports paid, read as the payment claim it makes. Pure. */
import type { PaymentConfirmation } from '../charges/paymentConfirmation';
import type { ProviderBoleto } from '../provider';

/** The claim a paid boleto makes (callback or close): a hint to look, never what is credited. */
export function boletoClaim(boleto: ProviderBoleto): PaymentConfirmation {
  const payment = boleto.payment;
  return {
    providerChargeId: boleto.id,
    // Barcode payments have no endToEndId: the boleto id keys the claim (one payment per boleto).
    endToEndId: payment?.endToEndId ?? `BOLETO-${boleto.id}`,
    amountCents: payment?.amountCents ?? boleto.amountCents,
    paidAt: payment?.paidAt ?? boleto.paidAt ?? new Date(0).toISOString(),
    payer: payment?.payer ?? null,
  };
}

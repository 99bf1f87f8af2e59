/** A charge as the application API shows it (the spec's "Charge (application API)"). Pure. */
import type { Charge, Refund } from '../../db/models';
import { presentRefund } from '../refunds/service';

/** Where a boleto charge's PDF is served (GET /charges/{id}/boleto/pdf, bearer). */
export function boletoPdfUrl(publicBaseUrl: string, chargeId: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/charges/${chargeId}/boleto/pdf`;
}

export function presentAppCharge(charge: Charge, publicBaseUrl: string, refunds: Refund[] = []) {
  return {
    id: charge.id,
    merchantId: charge.merchantId,
    amountCents: charge.amountCents,
    currency: 'BRL' as const,
    description: charge.description,
    // One lifecycle, two spellings: the seller routes say CANCELLED.
    status: charge.status === 'CANCELLED' ? ('CANCELED' as const) : charge.status,
    method: (charge.method ?? 'PIX') as 'PIX' | 'BOLETO',
    expiresAt: charge.expiresAt.toISOString(),
    idempotencyKey: charge.idempotencyKey,
    externalRef: charge.externalRef,
    metadata: charge.metadata,
    // A boleto is hybrid: its Pix BR Code is shown too, and whichever is paid first settles it.
    pix: charge.pix
      ? { qrCode: charge.pix.qrCode, copyPaste: charge.pix.copyPaste, expiresAt: charge.pix.expiresAt }
      : null,
    boleto: presentBoleto(charge, publicBaseUrl),
    refunds: refunds.map(presentRefund),
    refundedAmountCents: refunds.filter((r) => r.status === 'SUCCEEDED').reduce((sum, r) => sum + r.amountCents, 0),
    createdAt: charge.createdAt.toISOString(),
    updatedAt: charge.updatedAt.toISOString(),
  };
}

function presentBoleto(charge: Charge, publicBaseUrl: string) {
  if (charge.method !== 'BOLETO' || !charge.boletoBarcode || !charge.boletoDigitableLine) return null;
  const paidAmount = charge.boletoPaidAmountCents;
  return {
    barcode: charge.boletoBarcode,
    digitableLine: charge.boletoDigitableLine,
    pdfUrl: boletoPdfUrl(publicBaseUrl, charge.id),
    expiresAt: charge.expiresAt.toISOString(),
    payment:
      charge.status === 'PAID' && paidAmount !== null && paidAmount !== undefined
        ? {
            amountCents: paidAmount,
            via: charge.boletoPaidVia ?? 'BOLETO',
            late: charge.boletoLate,
            underpaid: charge.boletoUnderpaid,
            overpaid: charge.boletoOverpaid,
          }
        : null,
  };
}

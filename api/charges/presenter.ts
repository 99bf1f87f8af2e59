/** A charge as the application API shows it (the spec's "Charge (application API)"). Pure. */
import type { Charge, Refund } from '../../db/models';
import { presentRefund } from './refunds';

export function presentAppCharge(charge: Charge, refunds: Refund[] = []) {
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
    pix: charge.pix ? { qrCode: charge.pix.qrCode, copyPaste: charge.pix.copyPaste, expiresAt: charge.pix.expiresAt } : null,
    boleto: null,
    refunds: refunds.map(presentRefund),
    refundedAmountCents: refunds.filter((r) => r.status === 'SUCCEEDED').reduce((sum, r) => sum + r.amountCents, 0),
    createdAt: charge.createdAt.toISOString(),
    updatedAt: charge.updatedAt.toISOString(),
  };
}

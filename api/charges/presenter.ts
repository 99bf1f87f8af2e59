/** A charge as the application API shows it (the spec's "Charge (application API)"). Pure. */
import type { Charge } from '../../db/models';

export function presentAppCharge(charge: Charge) {
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
    createdAt: charge.createdAt.toISOString(),
    updatedAt: charge.updatedAt.toISOString(),
  };
}

/**
 * The spec's "Seller Pix charge" object, built from stored data. Pure: used by the API for
 * responses and by activities for event payloads, so both show the same thing.
 */

export interface SellerChargeSource {
  charge: {
    id: string;
    status: string;
    amountCents: number;
    description: string | null;
    externalRef: string | null;
    metadata: Record<string, unknown> | null;
    pix: { qrCode: string; copyPaste: string; expiresAt: string } | null;
    payerSnapshot: Record<string, unknown> | null;
    endToEndId: string | null;
    pixTxid: string | null;
    expiresAt: Date;
    paidAt: Date | null;
    paidAfterExpiry: boolean;
    createdAt: Date;
    updatedAt: Date;
  };
  splits: { id: string; merchantId: string; amountCents: number; percentage: number | null }[];
  merchant: { id: string; name: string; email: string | null; document: string | null; documentType: string | null };
  webhook: { id: string; url: string; secret: string | null; events: string[] } | null;
  /** The service's own payment institution, shown as the beneficiary's account. */
  platformInstitution: string;
}

const payerFields = ['name', 'email', 'phone', 'document', 'documentType', 'institution', 'agency', 'account'] as const;

export function presentSellerCharge(src: SellerChargeSource): Record<string, unknown> {
  const { charge } = src;
  const payer = charge.payerSnapshot
    ? Object.fromEntries(payerFields.map((f) => [f, (charge.payerSnapshot as Record<string, unknown>)[f] ?? null]))
    : null;
  return {
    id: charge.id,
    status: charge.status,
    amountCents: charge.amountCents,
    description: charge.description ?? '',
    externalRef: charge.externalRef,
    metadata: charge.metadata,
    pix: charge.pix,
    pixTxid: charge.pixTxid,
    endToEndId: charge.endToEndId,
    splits: src.splits.map((s) => ({
      id: s.id,
      merchantId: s.merchantId,
      amountCents: s.amountCents,
      percentage: s.percentage,
    })),
    webhook: src.webhook,
    payer,
    beneficiary: {
      id: src.merchant.id,
      name: src.merchant.name,
      email: src.merchant.email,
      document: src.merchant.document,
      documentType: src.merchant.documentType,
      institution: src.platformInstitution,
      account: { institution: src.platformInstitution, type: 'PAYMENT' },
    },
    expiresAt: charge.expiresAt.toISOString(),
    paidAt: charge.paidAt ? charge.paidAt.toISOString() : null,
    paidAfterExpiry: charge.paidAfterExpiry,
    createdAt: charge.createdAt.toISOString(),
    updatedAt: charge.updatedAt.toISOString(),
  };
}

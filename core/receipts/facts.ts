/**
 * What a receipt (comprovante) states: the facts of one charge, withdrawal or payout item, loaded
 * from our records (api/receipts/facts.ts) and then rendered (pdf/renderReceiptPdf.ts) or checked
 * against a verification code (verificationCode.ts). Raw values here; masking happens when the
 * facts are shown (masking.ts), so the digest and the page mask the same way.
 */

export type ReceiptKind = 'CHARGE' | 'WITHDRAWAL' | 'PAYOUT_ITEM';
/** The money receipts (comprovantes). */
export const MONEY_RECEIPT_KINDS: readonly ReceiptKind[] = ['CHARGE', 'WITHDRAWAL', 'PAYOUT_ITEM'];
/** Everything a verification code names: the receipts, and course certificates (core/receipts/certificate.ts). */
export type VerifiableKind = ReceiptKind | 'CERTIFICATE';
/**
 * A code stores the kind's index in this list: APPEND ONLY, never reorder, or codes already
 * printed would decode as another kind.
 */
export const RECEIPT_KINDS: readonly VerifiableKind[] = ['CHARGE', 'WITHDRAWAL', 'PAYOUT_ITEM', 'CERTIFICATE'];

/** One side of the transfer as the Pix network knows it. Any field but the name may be unknown. */
export interface Party {
  name: string;
  /** CPF (11) or CNPJ (14), digits only. */
  document: string | null;
  institution: string | null;
  /** The institution's 8-digit ISPB (BACEN participant code). */
  ispb: string | null;
  agency: string | null;
  account: string | null;
  pixKey: string | null;
}

export interface ReceiptFacts {
  kind: ReceiptKind;
  /** Our id of the charge / withdrawal / payout item. */
  documentId: string;
  amountCents: number;
  /** What the sender paid on top (withdrawals, payout items); null where no fee applies to the document's reader. */
  feeCents: number | null;
  /** ISO 8601 instant the money moved (paidAt, processedAt, settledAt). */
  occurredAt: string;
  endToEndId: string | null;
  txid: string | null;
  description: string | null;
  payer: Party | null;
  receiver: Party | null;
  /** Settled refunds (devoluções) of a charge, oldest first. */
  refunds: { amountCents: number; at: string }[];
}

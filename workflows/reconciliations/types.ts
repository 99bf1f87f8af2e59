/** Data of the Reconciliation workflow. Plain JSON. */

export type ReconciliationDifferenceKind = 'MISSING_IN_LEDGER' | 'MISSING_AT_PROVIDER' | 'AMOUNT_MISMATCH';

export interface ReconciliationDifference {
  kind: ReconciliationDifferenceKind;
  /**
   * PAYMENT: a Pix charge paid; RETURN: a devolução (refund) sent; TRANSFER: a withdrawal, settlement
   * or payout item sent; BALANCE: a connected merchant's PSP balance (saldo) against its ledger mirror
   * (a connection's reconciliation only; never healed).
   */
  subject: 'PAYMENT' | 'RETURN' | 'TRANSFER' | 'BALANCE';
  /** PAYMENT and RETURN. */
  chargeId: string | null;
  /** RETURN only. */
  refundId: string | null;
  /** TRANSFER only: the withdrawal (a settlement's too) or payout item id, our reference at the provider. */
  transferId: string | null;
  transferKind: 'WITHDRAWAL' | 'PAYOUT_ITEM' | 'SPLIT_SEND' | null;
  providerChargeId: string | null;
  endToEndId: string | null;
  /** What the provider's statement says (null: not on it); BALANCE: the account's saldo. */
  providerAmountCents: number | null;
  /**
   * What the ledger's CHARGE_PAID entry took from the payer (null: no entry); BALANCE: the
   * merchant's available + reserved + blocked (comparisonStore.ledgerMirrorCents).
   */
  ledgerAmountCents: number | null;
  /** Handed to the normal settlement path (lost callback); how it answered. */
  healed: boolean;
  resolution: string | null;
}

export interface ReconciliationCounts {
  matched: number;
  missingInLedger: number;
  missingAtProvider: number;
  amountMismatch: number;
  healed: number;
}

export interface ReconciliationResult {
  counts: ReconciliationCounts;
  differences: ReconciliationDifference[];
}

export const reconciliationWorkflowId = (reconciliationId: string) => `reconciliation-${reconciliationId}`;

/** Data that crosses the workflow boundary for a refund. Plain JSON. */
export interface RefundInput {
  refundId: string;
  chargeId: string;
  amountCents: number;
  reason: string;
  idempotencyKey: string | null;
  requestedBy: string | null;
  /** Boleto charges: the Pix key the refund is sent to (normalised). Absent: a devolução of the Pix payment. */
  destination?: { pixKey: string; pixKeyType: 'CPF' | 'CNPJ' | 'EMAIL' | 'PHONE' | 'EVP'; name: string; document: string | null } | null;
  /**
   * The devolução of an accepted Pix infraction (MED): its blocked money is unblocked in the
   * same DB transaction that reserves the shares, so it is never withdrawable in between.
   */
  medInfractionId?: string | null;
}

export type RefundPhase = 'RESERVING' | 'REFUSED' | 'PROCESSING' | 'SUCCEEDED' | 'FAILED';

/** What the request update answers once the reservation is committed. */
export interface ReservedRefund {
  refundId: string;
  status: 'PROCESSING' | 'SUCCEEDED' | 'FAILED';
}

export interface RefundOutcome {
  refundId: string;
  status: RefundPhase;
}

/** Refusals of the request (non-retryable; the API answers them, nothing is stored). */
export const RefundFailureTypes = {
  notRefundable: 'ChargeNotRefundable',
  exceedsPaid: 'RefundExceedsPaidAmount',
  insufficientBalance: 'InsufficientBalanceForRefund',
  reservationUnavailable: 'RefundReservationUnavailable',
} as const;

export const refundRefusalTypes: readonly string[] = [RefundFailureTypes.notRefundable, RefundFailureTypes.exceedsPaid, RefundFailureTypes.insufficientBalance];

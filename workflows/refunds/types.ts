/** Data that crosses the workflow boundary for a refund. Plain JSON. */
import type { PixKeyType } from '../../core/provider';
import { IDEMPOTENCY_KEY_BOUND } from '../../core/transfers/failures';

/** Where a boleto paid by barcode is refunded: a Pix key of its payer (the document is the payer's). */
export interface RefundDestinationRequest {
  pixKey: string;
  pixKeyType: PixKeyType;
  name: string;
  document: string | null;
}

export interface RefundInput {
  refundId: string;
  chargeId: string;
  amountCents: number;
  reason: string;
  idempotencyKey: string | null;
  requestedBy: string | null;
  /** Boleto charges: the Pix key the refund is sent to (normalised). Absent: a devolução of the Pix payment. */
  destination?: RefundDestinationRequest | null;
  /**
   * The devolução of an accepted Pix infraction (MED): its blocked money is unblocked in the
   * same DB transaction that reserves the shares, so it is never withdrawable in between.
   */
  medInfractionId?: string | null;
}

/** PARKED: reserved, not sent, while the merchant is frozen or inactive (shown to operators as BusinessStatus). */
export type RefundPhase = 'RESERVING' | 'REFUSED' | 'PROCESSING' | 'PARKED' | 'SUCCEEDED' | 'FAILED';

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
  /** The merchant may not move money out now: as withdrawals and payouts. */
  merchantFrozen: 'RefundMerchantFrozen',
  merchantInactive: 'RefundMerchantInactive',
  /** A boleto's refund destination: unknown to the directory, or not a key of the boleto's payer. */
  destinationNotFound: 'RefundDestinationNotFound',
  destinationNotPayer: 'RefundDestinationNotPayer',
  /** Another refund of the charge was made under this idempotency key: details `{ boundTo }`. */
  keyBound: IDEMPOTENCY_KEY_BOUND,
  /** The charge has an OPEN Pix infraction (MED): no refund of it until it is decided (its devolução is the MED's). */
  infractionOpen: 'RefundInfractionOpen',
} as const;

export const refundRefusalTypes: readonly string[] = [
  RefundFailureTypes.notRefundable,
  RefundFailureTypes.exceedsPaid,
  RefundFailureTypes.insufficientBalance,
  RefundFailureTypes.merchantFrozen,
  RefundFailureTypes.merchantInactive,
  RefundFailureTypes.destinationNotFound,
  RefundFailureTypes.destinationNotPayer,
  RefundFailureTypes.keyBound,
  RefundFailureTypes.infractionOpen,
];

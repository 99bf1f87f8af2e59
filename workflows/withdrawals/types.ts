/** Data that crosses the workflow boundary for a withdrawal. Plain JSON, no classes. */
import type { WithdrawalStatus } from '../../core/withdrawals/rules';
import { IDEMPOTENCY_KEY_BOUND } from '../../core/transfers/failures';

export interface WithdrawalInput {
  withdrawalId: string;
  merchantId: string;
  amountCents: number;
  description: string | null;
  idempotencyKey: string | null;
  userId: string | null;
  /**
   * Settle everything available: amountCents is ignored and the amount is the available balance
   * minus the fee, read under the merchant row lock inside the reservation (settlements only).
   */
  allAvailable?: boolean;
  /** A settlement rides on this withdrawal: its row is written in the reservation's DB transaction. */
  settlement?: SettlementTag;
}

export interface SettlementTag {
  settlementId: string;
  trigger: 'ON_DEMAND' | 'SCHEDULED';
  requestedBy: string | null;
  /** SCHEDULED: the schedule's workflow run (unique: one settlement per run). */
  scheduleRunId: string | null;
  scheduleFrequency: 'D0' | 'D1' | 'WEEKLY' | null;
}

/** What the request update answers: the reservation is committed (or, rarely, already settled). */
export interface ReservedWithdrawal {
  withdrawalId: string;
  status: WithdrawalStatus;
  amountCents: number;
  feeCents: number;
  totalDebitedCents: number;
}

/** The provider's answer about our transfer, reduced to what we store (no raw payload). */
export interface TransferOutcome {
  status: 'COMPLETED' | 'FAILED';
  providerTransferId: string;
  endToEndId: string | null;
  failureCode: string | null;
}

export interface FailureNote {
  code: string;
  reason: string;
}

/** REFUSED: nothing was reserved or stored (insufficient balance, frozen, no Pix key). */
export type WithdrawalPhase = 'RESERVING' | WithdrawalStatus | 'REFUSED';

export interface WithdrawalOutcome {
  withdrawalId: string;
  status: WithdrawalPhase;
}

/** ApplicationFailure types raised to the API (non-retryable) or used between activity and workflow. */
export const WithdrawalFailureTypes = {
  insufficientBalance: 'InsufficientAvailableBalance',
  frozen: 'WithdrawalsFrozen',
  pixKeyMissing: 'PixKeyNotRegistered',
  merchantInactive: 'MerchantInactive',
  /** A connected merchant (issue 37): its money is in its own PSP account, never the platform's. */
  moneyInOwnAccount: 'MoneyInOwnAccount',
  reservationUnavailable: 'ReservationUnavailable',
  providerUnavailable: 'ProviderUnavailable',
  stateConflict: 'WithdrawalStateConflict',
  cancelled: 'WithdrawalCancelled',
  /** The merchant's withdrawal (or settlement) under this idempotency key exists: details `{ boundTo }`. */
  keyBound: IDEMPOTENCY_KEY_BOUND,
} as const;

/** Refusals of the request itself: answered to the caller, nothing stored. */
export const withdrawalRefusalTypes: readonly string[] = [
  WithdrawalFailureTypes.insufficientBalance,
  WithdrawalFailureTypes.frozen,
  WithdrawalFailureTypes.pixKeyMissing,
  WithdrawalFailureTypes.merchantInactive,
  WithdrawalFailureTypes.moneyInOwnAccount,
  WithdrawalFailureTypes.keyBound,
];

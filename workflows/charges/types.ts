/** Data that crosses the workflow boundary for a charge. Plain JSON, no classes. */
import type { PaymentConfirmation } from '../../core/charges/paymentConfirmation';

export interface ChargeSplitInput {
  merchantId: string;
  amountCents: number;
  percentage: number;
}

export interface ChargeLifecycleInput {
  chargeId: string;
  merchantId: string;
  amountCents: number;
  feeCents: number;
  description: string | null;
  externalRef: string | null;
  metadata: Record<string, unknown> | null;
  splits: ChargeSplitInput[];
  expiresAt: string;
  idempotencyKey: string | null;
  /** Who the charge is addressed to (application API); absent on seller charges. */
  payer?: { name: string; taxId: string; email: string | null } | null;
  /**
   * PIX (default: absent on every run recorded before boletos, which replay unchanged) or BOLETO
   * (application API). A boleto is issued with `boleto` terms and closed at expiresAt + graceDays.
   */
  method?: ChargeMethod;
  boleto?: BoletoTerms | null;
  /** Charge-scoped webhook from `webhook_url`; the secret arrives encrypted, never in clear. */
  webhook: { id: string; url: string; events: string[]; secretCiphertext: string } | null;
  /**
   * The checkout this charge backs (P0 or session), stored by recordCharge in the charge's own
   * transaction. Absent on plain charges (and on every run recorded before checkouts).
   */
  checkout?: CheckoutRecordInput;
}

/** One line of a checkout: a course price (P0) or a free-form item (session). */
export interface CheckoutItemInput {
  priceId: string | null;
  courseId: string | null;
  name: string | null;
  quantity: number;
  unitAmountCents: number;
}

export interface CheckoutRecordInput {
  id: string;
  kind: 'P0' | 'SESSION';
  externalId: string | null;
  returnUrl: string | null;
  completionUrl: string | null;
  metadata: Record<string, unknown>;
  idempotencyKey: string | null;
  items: CheckoutItemInput[];
}

export type ChargeMethod = 'PIX' | 'BOLETO';

/** Late-payment terms a boleto is registered with (basis points; 0 = none). */
export interface BoletoTerms {
  finePercentBps: number;
  monthlyInterestBps: number;
  graceDays: number;
}

/** When an unpaid charge is closed: its expiry, plus the grace days of a boleto. */
export function closesAt(input: Pick<ChargeLifecycleInput, 'method' | 'expiresAt' | 'boleto'>): number {
  const graceDays = input.method === 'BOLETO' ? (input.boleto?.graceDays ?? 0) : 0;
  return Date.parse(input.expiresAt) + graceDays * 86_400_000;
}

/** What the issue update returns: enough for the API to build its 201 without another read. */
export interface IssuedCharge {
  chargeId: string;
  providerChargeId: string;
  pixTxid: string;
  copyPaste: string;
  expiresAt: string;
}

/**
 * What settlement made of a payment claim: SETTLED (credited now), ALREADY_PAID, NOT_CONFIRMED
 * (the provider does not say PAID: forged or premature), MISMATCH (paid, but not as charged).
 */
export type SettleOutcome = 'SETTLED' | 'ALREADY_PAID' | 'NOT_CONFIRMED' | 'MISMATCH';

/** The provider's answer to a close; NO_RECORD when it has no record of the charge at all. */
export interface CloseOutcome {
  status: string;
  payment: PaymentConfirmation | null;
}

export type ChargePhase = 'ISSUING' | 'PENDING' | 'PAID' | 'EXPIRED' | 'CANCELLED' | 'FAILED';

export interface ChargeOutcome {
  chargeId: string;
  status: ChargePhase;
}

/** ApplicationFailure types the workflow raises to the API (non-retryable). */
export const ChargeFailureTypes = {
  providerRejected: 'ProviderRejected',
  providerUnavailable: 'ProviderUnavailable',
  pixNotIssued: 'PixNotIssued',
  notCancellable: 'ChargeNotCancellable',
  /** The merchant's own PSP connection was revoked (issue 37): nothing was issued, on no account. */
  connectionRevoked: 'PspConnectionRevoked',
  /** No connection, and the platform holds nobody's money (ACCOUNT_MODEL_DEFAULT=connected): nothing was issued. */
  connectionRequired: 'PspConnectionRequired',
  /** A connected merchant's split cannot be done by its PSP (a recipient without an account there, the platform's account not configured). */
  splitNotPossible: 'SplitNotPossible',
  /** A record attempt found the give-up's tombstone and committed nothing. */
  issueAbandoned: 'ChargeIssueAbandoned',
} as const;

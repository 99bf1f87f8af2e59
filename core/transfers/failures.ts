/**
 * Why an outgoing Pix transfer failed, in our own words. The provider's free-text reason is
 * never shown to merchants: it may name the supplier or carry internal detail. Pure.
 */
/** Cancelled by an operator before any transfer was sent. */
export const CANCELLED_BEFORE_TRANSFER = { code: 'CANCELLED', reason: 'cancelled before the transfer was sent' };

/**
 * The platform's account at the PSP could not cover the transfer when it was about to be sent
 * (GET /v2/gn/saldo): nothing was sent. A withdrawal is refused with it (the reserve returned);
 * payout items wait with it (parked), and go when the account is topped up.
 */
export const PSP_BALANCE_INSUFFICIENT = {
  code: 'PSP_BALANCE_INSUFFICIENT',
  reason: "the platform's account at the payment institution could not cover the transfer now; nothing was sent",
};

const reasons: Record<string, string> = {
  [CANCELLED_BEFORE_TRANSFER.code]: CANCELLED_BEFORE_TRANSFER.reason,
  INVALID_PIX_KEY: 'the Pix key was not found in the Pix directory (DICT)',
  RECIPIENT_REFUSED: "the recipient's institution refused the transfer",
  INSUFFICIENT_FUNDS: 'the transfer could not be funded at the payment institution',
  RECIPIENT_DOCUMENT_MISMATCH: "the Pix key's owner is not the person the transfer was addressed to",
  RECIPIENT_BLOCKED: "the recipient's document is blocked for Pix at the payment institution",
  PAYMENT_DENIED: "the payment institution's analysis refused the transfer",
  INVALID_AMOUNT: 'the payment institution refused the amount',
  [PSP_BALANCE_INSUFFICIENT.code]: PSP_BALANCE_INSUFFICIENT.reason,
};

/**
 * A Pix the PSP did not make (Efí's NAO_REALIZADO), by its ISO 20022 reason code (pacs.002
 * ExternalStatusReason), in the taxonomy above: a reason merchants already know, never the
 * PSP's words. Codes not listed are the recipient's institution refusing.
 */
const ISO_REASONS: Readonly<Record<string, string>> = {
  AC01: 'INVALID_PIX_KEY', // incorrect account number
  AC03: 'INVALID_PIX_KEY', // invalid creditor account number
  AC14: 'INVALID_PIX_KEY', // invalid creditor account type
  AM04: 'INSUFFICIENT_FUNDS', // insufficient funds (ours, at the paying PSP)
  BE01: 'RECIPIENT_DOCUMENT_MISMATCH', // inconsistent with the end customer
  BE17: 'RECIPIENT_DOCUMENT_MISMATCH', // creditor identifier incorrect
};

export function transferFailureOfIsoReason(code: string | null | undefined): string {
  const key = (code ?? '').toUpperCase();
  return Object.hasOwn(ISO_REASONS, key) ? ISO_REASONS[key] : 'RECIPIENT_REFUSED';
}

/** Failure codes are shown only when they look like a plain machine code. */
const CODE = /^[A-Z][A-Z0-9_]{0,39}$/;

export function describeTransferFailure(code: string | null): { code: string; reason: string } {
  const known = code && reasons[code];
  if (code && known) return { code, reason: known };
  const safeCode = code && CODE.test(code) ? code : 'TRANSFER_REFUSED';
  return { code: safeCode, reason: `the Pix transfer was refused (${safeCode})` };
}

/**
 * A reservation refused because its idempotency key already made one (a refund of the charge, a
 * withdrawal or a settlement of the merchant): the details name it (`boundTo`), the API answers
 * it, and nothing is reserved or sent for the second request.
 */
export const IDEMPOTENCY_KEY_BOUND = 'IdempotencyKeyBound';

/** The transfer was refused before it reached the Pix network (bad request, conflict, ...). */
export const TRANSFER_NOT_ACCEPTED = {
  code: 'TRANSFER_NOT_ACCEPTED',
  reason: 'the payment institution did not accept the transfer',
};
/** The reservation could not be confirmed in time; nothing was sent. */
export const NOT_PROCESSED = {
  code: 'NOT_PROCESSED',
  reason: 'the withdrawal could not be processed; nothing was sent',
};

/**
 * How long a transfer the provider has no record of may still appear there (our attempt still
 * running, or its request still being processed): well beyond the activity and HTTP timeouts.
 * Nothing is released for such a transfer before this has passed and the provider was asked again.
 */
export const TRANSFER_GRACE = '2 minutes';

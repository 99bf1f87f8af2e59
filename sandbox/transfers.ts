/**
 * Outgoing Pix transfers (payouts). Outcomes are deterministic so tests can choose them:
 *  - pixKey containing "invalid"        → FAILED, INVALID_PIX_KEY (DICT lookup fails; no E2E)
 *  - a recipientDocument that is not the key owner's, when the directory knows the key
 *                                       → FAILED, RECIPIENT_DOCUMENT_MISMATCH (sandbox/dict.ts)
 *  - recipientName containing "REFUSE"  → FAILED, RECIPIENT_REFUSED
 *  - otherwise                          → COMPLETED with an endToEndId
 * A FAILED transfer is still a created resource (201): the request was accepted, the money
 * just did not move. Replays return it unchanged, as for any idempotent resource.
 */
import type { PixKeyType, ProviderTransfer } from '../core/provider';
import { generateEndToEndId } from '../core/pix/brcode';
import { randomAlphanumeric } from '../core/pix/random';
import type { SandboxContext } from './context';
import { findDictEntry } from './dict';
import { SandboxHttpError } from './errors';
import { fingerprint, lookupIdempotent } from './idempotency';
import { SANDBOX_ISPB } from './payer';
import { findReceivedPixPayment } from './receivedPayments';
import type { SandboxState } from './state';

export interface TransferInput {
  reference: string;
  amountCents: number;
  pixKey: string;
  pixKeyType: PixKeyType;
  recipientName: string;
  recipientDocument: string | null;
}

export interface PaymentReturnInput {
  reference: string;
  amountCents: number;
  endToEndId: string;
}

type Outcome = Pick<ProviderTransfer, 'status' | 'failureCode' | 'failureReason'>;

function decideOutcome(state: SandboxState, input: TransferInput): Outcome {
  if (input.pixKey.toLowerCase().includes('invalid')) {
    return { status: 'FAILED', failureCode: 'INVALID_PIX_KEY', failureReason: 'Pix key not found in DICT' };
  }
  // A document named with the transfer must be the key owner's, as a PSP checks it against the DICT.
  const owner = input.recipientDocument ? findDictEntry(state, input.pixKey) : null;
  if (owner && owner.ownerDocument !== input.recipientDocument) {
    return {
      status: 'FAILED',
      failureCode: 'RECIPIENT_DOCUMENT_MISMATCH',
      failureReason: "the key's owner has another document",
    };
  }
  if (input.recipientName.includes('REFUSE')) {
    return {
      status: 'FAILED',
      failureCode: 'RECIPIENT_REFUSED',
      failureReason: "Recipient's PSP refused the transfer",
    };
  }
  return { status: 'COMPLETED', failureCode: null, failureReason: null };
}

/**
 * A devolução: returns up to what is left of a received Pix payment (a charge, or a boleto paid
 * by its Pix) to its payer. FAILED with PAYMENT_NOT_FOUND when no payment has that endToEndId,
 * RETURN_EXCEEDS_PAYMENT when the completed returns plus this one would pass the paid amount.
 */
export function createPaymentReturn(
  ctx: SandboxContext,
  idempotencyKey: string,
  input: PaymentReturnInput,
): { transfer: ProviderTransfer; created: boolean } {
  const paid = findReceivedPixPayment(ctx, input.endToEndId);
  const returned = returnedCents(ctx, input.endToEndId);
  // Deterministic, so tests can choose it: a return of an amount ending in 13 cents is refused.
  const outcome: Outcome = !paid
    ? {
        status: 'FAILED',
        failureCode: 'PAYMENT_NOT_FOUND',
        failureReason: 'no received Pix payment with this endToEndId',
      }
    : input.amountCents % 100 === 13
      ? { status: 'FAILED', failureCode: 'RETURN_REFUSED', failureReason: "the payer's institution refused the return" }
      : returned + input.amountCents > paid.amountCents
        ? {
            status: 'FAILED',
            failureCode: 'RETURN_EXCEEDS_PAYMENT',
            failureReason: 'the returns would exceed the paid amount',
          }
        : { status: 'COMPLETED', failureCode: null, failureReason: null };
  const payer = paid?.payer;
  return recordTransfer(ctx, idempotencyKey, input, outcome, {
    reference: input.reference,
    amountCents: input.amountCents,
    pixKey: payer?.document ?? '',
    pixKeyType: payer?.documentType ?? 'CPF',
    recipientName: payer?.name ?? '',
    returnOf: input.endToEndId,
  });
}

/**
 * What the completed devoluções of a payment add up to, whichever API asked for them (/v1
 * payment-returns or API Pix's devolucao): one sum, so the same money cannot go back twice.
 */
export function returnedCents(ctx: SandboxContext, endToEndId: string): number {
  return [...ctx.state.transfers.values()]
    .filter((t) => t.returnOf === endToEndId && t.status === 'COMPLETED')
    .reduce((s, t) => s + t.amountCents, 0);
}

export function createTransfer(
  ctx: SandboxContext,
  idempotencyKey: string,
  input: TransferInput,
): { transfer: ProviderTransfer; created: boolean } {
  return recordTransfer(ctx, idempotencyKey, input, decideOutcome(ctx.state, input), {
    reference: input.reference,
    amountCents: input.amountCents,
    pixKey: input.pixKey,
    pixKeyType: input.pixKeyType,
    recipientName: input.recipientName,
  });
}

/** Stats, idempotency and the record, shared by transfers and returns (one store, one lookup by reference). */
function recordTransfer(
  ctx: SandboxContext,
  idempotencyKey: string,
  input: TransferInput | PaymentReturnInput,
  outcome: Outcome,
  shown: Pick<ProviderTransfer, 'reference' | 'amountCents' | 'pixKey' | 'pixKeyType' | 'recipientName'> & {
    returnOf?: string;
  },
): { transfer: ProviderTransfer; created: boolean } {
  const { state } = ctx;
  const stats = state.transferStats.get(input.reference) ?? { requests: 0, created: 0 };
  stats.requests++;
  state.transferStats.set(input.reference, stats);
  ctx.journal.transferStats(input.reference, stats);

  const bodyFingerprint = fingerprint(input);
  const known = lookupIdempotent(state.transferIdempotency, idempotencyKey, bodyFingerprint);
  if (known) return { transfer: structuredClone(getTransfer(ctx, known)), created: false };

  const now = ctx.now();
  const transfer: ProviderTransfer = {
    id: `sbx_tr_${randomAlphanumeric(24)}`,
    ...shown,
    // The sandbox is the paying PSP here, so the E2E id carries its ISPB.
    endToEndId: outcome.status === 'COMPLETED' ? generateEndToEndId(SANDBOX_ISPB, now) : null,
    ...outcome,
    createdAt: now.toISOString(),
  };
  const key = { fingerprint: bodyFingerprint, resourceId: transfer.id };
  stats.created++;
  ctx.journal.transfer(transfer);
  ctx.journal.transferKey(idempotencyKey, key);
  ctx.journal.transferStats(input.reference, stats);
  state.transfers.set(transfer.id, transfer);
  state.transferIdempotency.set(idempotencyKey, key);
  ctx.logger.info({ transferId: transfer.id, reference: input.reference, status: transfer.status }, 'transfer created');
  return { transfer: structuredClone(transfer), created: true };
}

export function getTransfer(ctx: SandboxContext, id: string): ProviderTransfer {
  const transfer = ctx.state.transfers.get(id);
  if (!transfer) throw new SandboxHttpError(404, 'TRANSFER_NOT_FOUND', `transfer ${id} not found`);
  return transfer;
}

/** First transfer for the reference: the one a well-behaved client created with key = reference. */
export function findTransferByReference(ctx: SandboxContext, reference: string): ProviderTransfer | null {
  for (const transfer of ctx.state.transfers.values()) if (transfer.reference === reference) return transfer;
  return null;
}

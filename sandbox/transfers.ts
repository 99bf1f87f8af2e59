/**
 * Outgoing Pix transfers (payouts). Outcomes are deterministic so tests can choose them:
 *  - pixKey containing "invalid"        → FAILED, INVALID_PIX_KEY (DICT lookup fails; no E2E)
 *  - recipientName containing "REFUSE"  → FAILED, RECIPIENT_REFUSED
 *  - otherwise                          → COMPLETED with an endToEndId
 * A FAILED transfer is still a created resource (201): the request was accepted, the money
 * just did not move. Replays return it unchanged, as for any idempotent resource.
 */
import type { PixKeyType, ProviderTransfer } from '../core/provider';
import { generateEndToEndId } from '../core/pix/brcode';
import { randomAlphanumeric } from '../core/pix/random';
import type { SandboxContext } from './context';
import { SandboxHttpError } from './errors';
import { fingerprint, lookupIdempotent } from './idempotency';
import { SANDBOX_ISPB } from './payer';

export interface TransferInput {
  reference: string;
  amountCents: number;
  pixKey: string;
  pixKeyType: PixKeyType;
  recipientName: string;
  recipientDocument: string | null;
}

type Outcome = Pick<ProviderTransfer, 'status' | 'failureCode' | 'failureReason'>;

function decideOutcome(input: TransferInput): Outcome {
  if (input.pixKey.toLowerCase().includes('invalid')) {
    return { status: 'FAILED', failureCode: 'INVALID_PIX_KEY', failureReason: 'Pix key not found in DICT' };
  }
  if (input.recipientName.includes('REFUSE')) {
    return { status: 'FAILED', failureCode: 'RECIPIENT_REFUSED', failureReason: "Recipient's PSP refused the transfer" };
  }
  return { status: 'COMPLETED', failureCode: null, failureReason: null };
}

export function createTransfer(
  ctx: SandboxContext,
  idempotencyKey: string,
  input: TransferInput,
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
  const outcome = decideOutcome(input);
  const transfer: ProviderTransfer = {
    id: `sbx_tr_${randomAlphanumeric(24)}`,
    reference: input.reference,
    amountCents: input.amountCents,
    pixKey: input.pixKey,
    pixKeyType: input.pixKeyType,
    recipientName: input.recipientName,
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

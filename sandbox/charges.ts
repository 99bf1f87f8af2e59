/** Charge lifecycle of the sandbox PSP: issue, read (with lazy expiry), close, pay. */
import type { ProviderCharge, ProviderChargeStatus, ProviderPayer } from '../core/provider';
import { generateEndToEndId } from '../core/pix/brcode';
import { randomAlphanumeric } from '../core/pix/random';
import type { SandboxContext } from './context';
import { SandboxHttpError } from './errors';
import { issuePixPayload } from './pixPayload';
import { fingerprint, lookupIdempotent } from './idempotency';
import { defaultPayer } from './payer';
import type { ChargeRecord } from './state';

export interface IssueChargeInput {
  reference: string;
  amountCents: number;
  description: string | null;
  expiresAt: string;
  callbackUrl: string;
  /** Shown to the payer in field 59 of the BR Code; the sandbox's own name when absent. */
  merchantName?: string | null;
}

export function effectiveStatus(rec: ChargeRecord, now: Date): ProviderChargeStatus {
  const { status, expiresAt } = rec.charge;
  return status === 'ACTIVE' && Date.parse(expiresAt) <= now.getTime() ? 'EXPIRED' : status;
}

/** A copy, so callers can never mutate stored state through a returned object. */
export function viewCharge(rec: ChargeRecord, now: Date): ProviderCharge {
  return { ...structuredClone(rec.charge), status: effectiveStatus(rec, now) };
}

export async function issueCharge(
  ctx: SandboxContext,
  idempotencyKey: string,
  input: IssueChargeInput,
): Promise<{ charge: ProviderCharge; created: boolean }> {
  const { state } = ctx;
  const bodyFingerprint = fingerprint(input);
  const known = lookupIdempotent(state.chargeIdempotency, idempotencyKey, bodyFingerprint);
  if (known) return { charge: viewCharge(getChargeRecord(ctx, known), ctx.now()), created: false };

  const now = ctx.now();
  if (Date.parse(input.expiresAt) <= now.getTime()) {
    throw new SandboxHttpError(400, 'VALIDATION_ERROR', 'expiresAt must be in the future');
  }
  const { txid, copyPaste, qrCodeBase64 } = await issuePixPayload(input.merchantName, input.amountCents);

  // Re-check after the await: a concurrent request with the same key may have won meanwhile.
  // From here to the store there is no await, so the check-and-insert is atomic.
  const winner = lookupIdempotent(state.chargeIdempotency, idempotencyKey, bodyFingerprint);
  if (winner) return { charge: viewCharge(getChargeRecord(ctx, winner), ctx.now()), created: false };

  const rec: ChargeRecord = {
    charge: {
      id: `sbx_ch_${randomAlphanumeric(24)}`,
      reference: input.reference,
      txid,
      status: 'ACTIVE',
      amountCents: input.amountCents,
      copyPaste,
      qrCodeBase64,
      expiresAt: new Date(input.expiresAt).toISOString(),
      createdAt: now.toISOString(),
      paidAt: null,
      endToEndId: null,
      payer: null,
    },
    callbackUrl: input.callbackUrl,
    description: input.description,
    paidEvent: null,
  };
  const key = { fingerprint: bodyFingerprint, resourceId: rec.charge.id };
  ctx.journal.charge(rec);
  ctx.journal.chargeKey(idempotencyKey, key);
  state.charges.set(rec.charge.id, rec);
  state.chargeIdempotency.set(idempotencyKey, key);
  ctx.logger.info({ chargeId: rec.charge.id, reference: input.reference }, 'charge issued');
  return { charge: viewCharge(rec, now), created: true };
}

export function getChargeRecord(ctx: SandboxContext, id: string): ChargeRecord {
  const rec = ctx.state.charges.get(id);
  if (!rec) throw new SandboxHttpError(404, 'CHARGE_NOT_FOUND', `charge ${id} not found`);
  return rec;
}

/**
 * First charge issued with this reference: the one a well-behaved client created with
 * key = reference (reusing a reference under another key is possible and makes several).
 */
export function findChargeByReference(ctx: SandboxContext, reference: string): ChargeRecord | null {
  for (const rec of ctx.state.charges.values()) if (rec.charge.reference === reference) return rec;
  return null;
}

/** The charge with this txid (a cob's, or the one a /v1 charge's BR Code carries), or null. */
export function findChargeByTxid(ctx: SandboxContext, txid: string): ChargeRecord | null {
  for (const rec of ctx.state.charges.values()) if (rec.charge.txid === txid) return rec;
  return null;
}

/** For the control routes: a charge by its provider id, the gateway's reference or its txid. */
export function findChargeRecord(ctx: SandboxContext, idReferenceOrTxid: string): ChargeRecord | null {
  return (
    ctx.state.charges.get(idReferenceOrTxid) ??
    findChargeByReference(ctx, idReferenceOrTxid) ??
    findChargeByTxid(ctx, idReferenceOrTxid)
  );
}

/** Idempotent: only an ACTIVE charge changes; PAID, CANCELLED and EXPIRED are final. */
export function closeCharge(ctx: SandboxContext, id: string, reason: 'EXPIRED' | 'CANCELLED'): ProviderCharge {
  const rec = getChargeRecord(ctx, id);
  const now = ctx.now();
  const status = effectiveStatus(rec, now);
  if (status === 'ACTIVE') rec.charge.status = reason;
  else if (status === 'EXPIRED') rec.charge.status = 'EXPIRED'; // make the derived state stick
  ctx.journal.charge(rec);
  ctx.logger.info({ chargeId: id, reason, status: rec.charge.status }, 'charge close requested');
  return viewCharge(rec, now);
}

/**
 * The payer's side: settles an ACTIVE charge and fires the signed callback (a cob: the API Pix
 * webhook of its chave). `late` also settles an EXPIRED or CANCELLED one: a payment SPI settled
 * while the charge was being closed, which the gateway must credit, never drop.
 */
export function payCharge(
  ctx: SandboxContext,
  idReferenceOrTxid: string,
  payerOverride: Partial<ProviderPayer>,
  late = false,
  callback = true,
): ProviderCharge {
  const rec = findChargeRecord(ctx, idReferenceOrTxid);
  if (!rec) throw new SandboxHttpError(404, 'CHARGE_NOT_FOUND', `charge ${idReferenceOrTxid} not found`);
  const now = ctx.now();
  const status = effectiveStatus(rec, now);
  if (status !== 'ACTIVE' && !(late && status !== 'PAID')) {
    throw new SandboxHttpError(409, 'CHARGE_NOT_PAYABLE', `charge is ${status}`, { status });
  }
  const payer: ProviderPayer = { ...defaultPayer(), ...payerOverride };
  Object.assign(rec.charge, {
    status: 'PAID',
    paidAt: now.toISOString(),
    // The E2E id is minted by the payer's PSP, hence the payer's ISPB.
    endToEndId: generateEndToEndId(payer.ispb, now),
    payer,
  } satisfies Partial<ProviderCharge>);
  rec.paidEvent = {
    eventId: `evt_${randomAlphanumeric(24)}`,
    type: 'charge.paid',
    occurredAt: now.toISOString(),
    charge: viewCharge(rec, now),
  };
  ctx.journal.charge(rec);
  ctx.logger.info({ chargeId: rec.charge.id, eventId: rec.paidEvent.eventId, late, callback }, 'charge paid');
  // callback=false: the payment happened but its callback is lost (resend-callback still works).
  if (callback) sendPaidCallback(ctx, rec);
  return viewCharge(rec, now);
}

/**
 * Re-sends the original paid event (same eventId, same body) to prove dedupe downstream. A cob's
 * notification is built again: the Pix as it is now (with any devoluções since), same eventId in the log.
 */
export function resendPaidCallback(ctx: SandboxContext, idReferenceOrTxid: string): string {
  const rec = findChargeRecord(ctx, idReferenceOrTxid);
  if (!rec) throw new SandboxHttpError(404, 'CHARGE_NOT_FOUND', `charge ${idReferenceOrTxid} not found`);
  if (!rec.paidEvent) {
    throw new SandboxHttpError(409, 'CHARGE_NOT_PAID', 'charge has no paid event to resend', {
      status: effectiveStatus(rec, ctx.now()),
    });
  }
  sendPaidCallback(ctx, rec);
  return rec.paidEvent.eventId;
}

/** A /v1 charge calls back its callbackUrl; a cob is announced through API Pix (the webhook of its chave). */
function sendPaidCallback(ctx: SandboxContext, rec: ChargeRecord): void {
  if (rec.cob) ctx.cobNotifications.cobPaid(rec);
  else if (rec.paidEvent && rec.callbackUrl) ctx.callbacks.deliver(rec.paidEvent, rec.callbackUrl);
}

/**
 * Boletos of the sandbox bank: register (nosso número, FEBRABAN digits, Pix BR Code for the same
 * amount: the boleto híbrido), read, cancel (baixa) and pay, by barcode or by Pix. Whichever is
 * paid first settles the boleto and closes the other; a second payment is a 409.
 * Calendar days are Brasília's (UTC−3, no daylight saving since 2019).
 */
import {
  SANDBOX_ACCOUNT,
  SANDBOX_AGENCY,
  SANDBOX_BANK_CODE,
  addDays,
  amountDueOn,
  barcodeToDigitableLine,
  buildBarcode,
  buildSandboxFreeField,
  isoDateOf,
  sandboxNossoNumero,
} from '../core/boletos';
import { generateEndToEndId } from '../core/pix/brcode';
import { randomAlphanumeric } from '../core/pix/random';
import type {
  BoletoPaymentVia,
  BoletoSettlement,
  IssueBoletoRequest,
  ProviderBoleto,
  ProviderBoletoPayment,
  ProviderPayer,
} from '../core/provider';
import type { SandboxContext } from './context';
import { notifyEfiBoleto } from './efi/cobrancas';
import { SandboxHttpError } from './errors';
import { issuePixPayload } from './pixPayload';
import { fingerprint, lookupIdempotent } from './idempotency';
import { defaultPayer } from './payer';
import type { BoletoRecord } from './state';

const BRASILIA_OFFSET_MS = 3 * 3_600_000;

/** The calendar day in Brasília at this instant. */
export function brasiliaDate(instant: Date): string {
  return isoDateOf(new Date(instant.getTime() - BRASILIA_OFFSET_MS));
}

/** Weekends skipped; bank holidays are not modelled. */
function nextBusinessDay(date: string): string {
  let next = addDays(date, 1);
  for (;;) {
    const weekday = new Date(`${next}T00:00:00Z`).getUTCDay();
    if (weekday !== 0 && weekday !== 6) return next;
    next = addDays(next, 1);
  }
}

export function viewBoleto(rec: BoletoRecord): ProviderBoleto {
  return structuredClone(rec.boleto);
}

export type IssueBoletoInput = Required<Omit<IssueBoletoRequest, 'merchantName' | 'payer'>> & {
  merchantName?: string | null;
  payer: { name: string; document: string; email: string | null };
};

export async function issueBoleto(
  ctx: SandboxContext,
  idempotencyKey: string,
  input: IssueBoletoInput,
): Promise<{ boleto: ProviderBoleto; created: boolean }> {
  const { state } = ctx;
  const bodyFingerprint = fingerprint(input);
  const known = lookupIdempotent(state.boletoIdempotency, idempotencyKey, bodyFingerprint);
  if (known) return { boleto: viewBoleto(getBoletoRecord(ctx, known)), created: false };

  const now = ctx.now();
  // A bank refuses to register a boleto already overdue on the day it is issued.
  if (input.dueDate < brasiliaDate(now)) {
    throw new SandboxHttpError(400, 'VALIDATION_ERROR', `dueDate ${input.dueDate} is in the past`);
  }
  const { txid, copyPaste, qrCodeBase64 } = await issuePixPayload(input.merchantName, input.amountCents);

  // Re-check after the await; from here to the store nothing awaits, so numbering is atomic.
  const winner = lookupIdempotent(state.boletoIdempotency, idempotencyKey, bodyFingerprint);
  if (winner) return { boleto: viewBoleto(getBoletoRecord(ctx, winner)), created: false };

  // Boletos are never deleted, so the count is a gap-free sequence that survives restarts.
  const nossoNumero = sandboxNossoNumero(state.boletos.size + 1);
  const barcode = buildBarcode({
    bankCode: SANDBOX_BANK_CODE,
    dueDate: input.dueDate,
    amountCents: input.amountCents,
    freeField: buildSandboxFreeField({ nossoNumero, agency: SANDBOX_AGENCY, account: SANDBOX_ACCOUNT }),
  });
  const rec: BoletoRecord = {
    boleto: {
      id: `sbx_bol_${randomAlphanumeric(24)}`,
      reference: input.reference,
      status: 'REGISTERED',
      bankCode: SANDBOX_BANK_CODE,
      nossoNumero,
      barcode,
      digitableLine: barcodeToDigitableLine(barcode),
      dueDate: input.dueDate,
      amountCents: input.amountCents,
      fine: input.fine,
      interest: input.interest,
      graceDays: input.graceDays,
      payer: input.payer,
      pix: { copyPaste, qrCodeBase64, txid, status: 'ACTIVE' },
      createdAt: now.toISOString(),
      paidAt: null,
      cancelledAt: null,
      payment: null,
    },
    callbackUrl: input.callbackUrl,
    paidEvent: null,
  };
  const key = { fingerprint: bodyFingerprint, resourceId: rec.boleto.id };
  ctx.journal.boleto(rec);
  ctx.journal.boletoKey(idempotencyKey, key);
  state.boletos.set(rec.boleto.id, rec);
  state.boletoIdempotency.set(idempotencyKey, key);
  ctx.logger.info({ boletoId: rec.boleto.id, reference: input.reference, nossoNumero }, 'boleto registered');
  return { boleto: viewBoleto(rec), created: true };
}

export function getBoletoRecord(ctx: SandboxContext, id: string): BoletoRecord {
  const rec = ctx.state.boletos.get(id);
  if (!rec) throw new SandboxHttpError(404, 'BOLETO_NOT_FOUND', `boleto ${id} not found`);
  return rec;
}

/** First boleto registered with this reference (the one issued with key = reference). */
export function findBoletoByReference(ctx: SandboxContext, reference: string): BoletoRecord | null {
  for (const rec of ctx.state.boletos.values()) if (rec.boleto.reference === reference) return rec;
  return null;
}

function byIdOrReference(ctx: SandboxContext, idOrReference: string): BoletoRecord {
  const rec = ctx.state.boletos.get(idOrReference) ?? findBoletoByReference(ctx, idOrReference);
  if (!rec) throw new SandboxHttpError(404, 'BOLETO_NOT_FOUND', `boleto ${idOrReference} not found`);
  return rec;
}

/** Baixa of an unpaid boleto, its Pix closed too. Idempotent on a CANCELLED one; 409 once paid. */
export function cancelBoleto(ctx: SandboxContext, id: string): ProviderBoleto {
  const rec = getBoletoRecord(ctx, id);
  const { boleto } = rec;
  if (boleto.status === 'PAID') {
    throw new SandboxHttpError(409, 'BOLETO_NOT_CANCELLABLE', 'boleto is PAID', { status: boleto.status });
  }
  if (boleto.status === 'REGISTERED') {
    Object.assign(boleto, { status: 'CANCELLED', cancelledAt: ctx.now().toISOString() });
    boleto.pix.status = 'CLOSED';
    ctx.journal.boleto(rec);
    ctx.logger.info({ boletoId: id }, 'boleto cancelled');
  }
  return viewBoleto(rec);
}

export interface PayBoletoInput {
  amountCents?: number;
  /** 'YYYY-MM-DD' (paid at noon Brasília that day) or an ISO instant; now when absent. */
  paidAt?: string;
  via?: BoletoPaymentVia;
  /** D1 for a barcode payment and D0 for Pix unless given. */
  settlement?: BoletoSettlement;
  payer?: Partial<ProviderPayer>;
  /** false: the notice is lost (no callback, no Efí notification); the payment stands. */
  callback?: boolean;
}

/** The payer's side: settles a REGISTERED boleto by barcode or by its Pix and fires the signed callback. */
export function payBoleto(ctx: SandboxContext, idOrReference: string, input: PayBoletoInput): ProviderBoleto {
  const rec = byIdOrReference(ctx, idOrReference);
  const { boleto } = rec;
  const via = input.via ?? 'BOLETO';
  if (boleto.status !== 'REGISTERED') {
    const closed = boleto.status === 'PAID' ? `already paid by ${boleto.payment?.via}` : boleto.status;
    throw new SandboxHttpError(409, 'BOLETO_NOT_PAYABLE', `boleto is ${closed}`, {
      status: boleto.status,
      paidVia: boleto.payment?.via ?? null,
    });
  }
  // The Pix side of a boleto issued through Efí's API Cobranças is not modelled (efi/cobrancas.ts).
  if (rec.efi && via === 'PIX')
    throw new SandboxHttpError(409, 'BOLETO_NOT_PAYABLE', 'an Efí boleto is paid by barcode in this sandbox');
  const now = ctx.now();
  const paidAt =
    input.paidAt === undefined
      ? now
      : /^\d{4}-\d{2}-\d{2}$/.test(input.paidAt)
        ? new Date(`${input.paidAt}T15:00:00.000Z`)
        : new Date(input.paidAt);
  const paidDate = brasiliaDate(paidAt);
  const due = amountDueOn(
    {
      amountCents: boleto.amountCents,
      dueDate: boleto.dueDate,
      fineBps: boleto.fine?.percentBps ?? 0,
      monthlyInterestBps: boleto.interest?.monthlyBps ?? 0,
      graceDays: boleto.graceDays,
    },
    paidDate,
  );
  const amountCents = input.amountCents ?? due.expectedAmountCents;
  const settlement = input.settlement ?? (via === 'PIX' ? 'D0' : 'D1');
  const payer: ProviderPayer = {
    ...defaultPayer(),
    name: boleto.payer.name,
    document: boleto.payer.document,
    documentType: boleto.payer.document.length === 14 ? 'CNPJ' : 'CPF',
    email: boleto.payer.email,
    ...input.payer,
  };
  const payment: ProviderBoletoPayment = {
    via,
    paidAt: paidAt.toISOString(),
    paidDate,
    amountCents,
    expectedAmountCents: due.expectedAmountCents,
    fineCents: due.fineCents,
    interestCents: due.interestCents,
    daysLate: due.daysLate,
    late: due.late,
    amountMismatch:
      amountCents < due.expectedAmountCents ? 'UNDERPAID' : amountCents > due.expectedAmountCents ? 'OVERPAID' : null,
    settlement,
    creditDate: settlement === 'D0' ? paidDate : nextBusinessDay(paidDate),
    endToEndId: via === 'PIX' ? generateEndToEndId(payer.ispb, paidAt) : null,
    payer,
  };
  Object.assign(boleto, { status: 'PAID', paidAt: payment.paidAt, payment });
  // The other way to pay is closed: a paid barcode closes the Pix, a paid Pix the barcode.
  boleto.pix.status = via === 'PIX' ? 'PAID' : 'CLOSED';
  rec.paidEvent = {
    eventId: `evt_${randomAlphanumeric(24)}`,
    type: 'boleto.paid',
    occurredAt: now.toISOString(),
    boleto: viewBoleto(rec),
  };
  ctx.journal.boleto(rec);
  ctx.logger.info(
    { boletoId: boleto.id, eventId: rec.paidEvent.eventId, via, late: due.late, mismatch: payment.amountMismatch },
    'boleto paid',
  );
  // An Efí boleto notifies its notification_url with a token; a /v1 one posts its signed event.
  if (input.callback === false) return viewBoleto(rec);
  if (rec.efi) notifyEfiBoleto(ctx, rec);
  else ctx.callbacks.deliver(rec.paidEvent, rec.callbackUrl);
  return viewBoleto(rec);
}

/** Re-sends the original paid event (same eventId, same body). */
export function resendBoletoCallback(ctx: SandboxContext, idOrReference: string): string {
  const rec = byIdOrReference(ctx, idOrReference);
  if (!rec.paidEvent) {
    throw new SandboxHttpError(409, 'BOLETO_NOT_PAID', 'boleto has no paid event to resend', {
      status: rec.boleto.status,
    });
  }
  ctx.callbacks.deliver(rec.paidEvent, rec.callbackUrl);
  return rec.paidEvent.eventId;
}

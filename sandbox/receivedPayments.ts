/**
 * The Pix payments this PSP received: a paid Pix charge (a /v1 charge or an API Pix cob), or a
 * hybrid boleto paid through its BR Code. Devoluções and infractions (MED) are about a payment,
 * whatever it paid, so both find it here by its endToEndId (or, for test controls, the charge or
 * boleto id, our reference or the txid). API Pix's GET /pix lists them all.
 */
import type { ProviderPayer } from '../core/provider';
import { findBoletoByReference } from './boletos';
import { findChargeRecord } from './charges';
import type { SandboxContext } from './context';
import { defaultPayer, SANDBOX_MERCHANT } from './payer';
import type { BoletoRecord, ChargeRecord } from './state';
import { cobrPixKey, type CobRRecord } from './pixApi/recs';

export interface ReceivedPixPayment {
  /** The provider's id of what was paid (sbx_ch_… or sbx_bol_…). */
  providerId: string;
  /** The gateway's reference (its charge id; a cob's is its txid). */
  reference: string;
  endToEndId: string;
  txid: string;
  /** The receiving key the payment was made to: a cob's chave, else the sandbox's own key. */
  pixKey: string;
  amountCents: number;
  paidAt: string;
  payer: ProviderPayer;
  /** Test control only: the amount the statement reports instead (charges; see statement.ts). */
  statementAmountCents?: number;
  /** Set when the payment paid a cob created through API Pix. */
  cob: boolean;
}

function fromCharge(rec: ChargeRecord): ReceivedPixPayment | null {
  const c = rec.charge;
  if (c.status !== 'PAID' || !c.endToEndId || !c.payer || !c.paidAt) return null;
  const pixKey = rec.cob ? rec.cob.revisions[rec.cob.revisions.length - 1].chave : SANDBOX_MERCHANT.pixKey;
  return {
    providerId: c.id,
    reference: c.reference,
    endToEndId: c.endToEndId,
    txid: c.txid,
    pixKey,
    amountCents: c.amountCents,
    paidAt: c.paidAt,
    payer: c.payer,
    statementAmountCents: rec.statementAmountCents,
    cob: rec.cob !== undefined,
  };
}

function fromBoleto(rec: BoletoRecord): ReceivedPixPayment | null {
  const { boleto } = rec;
  const payment = boleto.payment;
  // An Efí boleto (efi/cobrancas.ts) is paid by barcode only, into its own account (balances.ts).
  if (!payment || payment.via !== 'PIX' || !payment.endToEndId || rec.efi) return null;
  return {
    providerId: boleto.id,
    reference: boleto.reference,
    endToEndId: payment.endToEndId,
    txid: boleto.pix.txid,
    pixKey: SANDBOX_MERCHANT.pixKey,
    amountCents: payment.amountCents,
    paidAt: payment.paidAt,
    payer: payment.payer,
    cob: false,
  };
}

/** A paid cobr (Pix Automático): received on the first key of its account; the payer is the sandbox's. */
function fromCobr(ctx: SandboxContext, cobr: CobRRecord): ReceivedPixPayment | null {
  if (!cobr.paid) return null;
  return {
    providerId: cobr.txid,
    reference: cobr.txid,
    endToEndId: cobr.paid.endToEndId,
    txid: cobr.txid,
    pixKey: cobrPixKey(ctx, cobr),
    amountCents: cobr.amountCents,
    paidAt: cobr.paid.paidAt,
    payer: defaultPayer(),
    cob: false,
  };
}

/** Every Pix payment received, charges first then boletos, then paid cobrs (callers sort as they need). */
export function listReceivedPixPayments(ctx: SandboxContext): ReceivedPixPayment[] {
  const out: ReceivedPixPayment[] = [];
  for (const rec of ctx.state.charges.values()) {
    const payment = fromCharge(rec);
    if (payment) out.push(payment);
  }
  for (const rec of ctx.state.boletos.values()) {
    const payment = fromBoleto(rec);
    if (payment) out.push(payment);
  }
  for (const cobr of ctx.state.pixAutomatico.cobrs.values()) {
    const payment = fromCobr(ctx, cobr);
    if (payment) out.push(payment);
  }
  return out;
}

/** Strictly by endToEndId (API Pix's /pix/{e2eid}: a txid or a reference must not match). */
export function findReceivedPixPaymentByE2e(ctx: SandboxContext, endToEndId: string): ReceivedPixPayment | null {
  return listReceivedPixPayments(ctx).find((p) => p.endToEndId === endToEndId) ?? null;
}

export function findReceivedPixPayment(ctx: SandboxContext, idReferenceTxidOrE2e: string): ReceivedPixPayment | null {
  const { charges, boletos } = ctx.state;
  const charge =
    findChargeRecord(ctx, idReferenceTxidOrE2e) ??
    [...charges.values()].find((r) => r.charge.endToEndId === idReferenceTxidOrE2e);
  if (charge) return fromCharge(charge);
  const boleto =
    boletos.get(idReferenceTxidOrE2e) ??
    findBoletoByReference(ctx, idReferenceTxidOrE2e) ??
    [...boletos.values()].find((r) => r.boleto.payment?.endToEndId === idReferenceTxidOrE2e);
  return boleto ? fromBoleto(boleto) : null;
}

/** Whether anything (a charge or a boleto) is known under this id, reference or txid, paid or not. */
export function knownPayable(ctx: SandboxContext, idReferenceOrTxid: string): boolean {
  return (
    findChargeRecord(ctx, idReferenceOrTxid) !== null ||
    ctx.state.boletos.has(idReferenceOrTxid) ||
    findBoletoByReference(ctx, idReferenceOrTxid) !== null
  );
}

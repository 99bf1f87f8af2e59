/**
 * The Pix payments this PSP received: a paid Pix charge, or a hybrid boleto paid through its
 * BR Code. Devoluções and infractions (MED) are about a payment, whatever it paid, so both find
 * it here by its endToEndId (or, for test controls, the charge or boleto id or our reference).
 */
import type { ProviderPayer } from '../core/provider';
import { findBoletoByReference } from './boletos';
import { findChargeByReference } from './charges';
import type { SandboxContext } from './context';

export interface ReceivedPixPayment {
  /** The provider's id of what was paid (sbx_ch_… or sbx_bol_…). */
  providerId: string;
  /** The gateway's reference (its charge id). */
  reference: string;
  endToEndId: string;
  amountCents: number;
  payer: ProviderPayer;
}

export function findReceivedPixPayment(ctx: SandboxContext, idReferenceOrE2e: string): ReceivedPixPayment | null {
  const { charges, boletos } = ctx.state;
  const charge =
    charges.get(idReferenceOrE2e) ?? findChargeByReference(ctx, idReferenceOrE2e) ?? [...charges.values()].find((r) => r.charge.endToEndId === idReferenceOrE2e);
  if (charge) {
    const c = charge.charge;
    return c.status === 'PAID' && c.endToEndId && c.payer ? { providerId: c.id, reference: c.reference, endToEndId: c.endToEndId, amountCents: c.amountCents, payer: c.payer } : null;
  }
  const boleto =
    boletos.get(idReferenceOrE2e) ?? findBoletoByReference(ctx, idReferenceOrE2e) ?? [...boletos.values()].find((r) => r.boleto.payment?.endToEndId === idReferenceOrE2e);
  const payment = boleto?.boleto.payment;
  if (!boleto || !payment || payment.via !== 'PIX' || !payment.endToEndId) return null;
  return { providerId: boleto.boleto.id, reference: boleto.boleto.reference, endToEndId: payment.endToEndId, amountCents: payment.amountCents, payer: payment.payer };
}

/** Whether anything (a charge or a boleto) is known under this id or reference, paid or not. */
export function knownPayable(ctx: SandboxContext, idOrReference: string): boolean {
  const { charges, boletos } = ctx.state;
  return charges.has(idOrReference) || boletos.has(idOrReference) || findChargeByReference(ctx, idOrReference) !== null || findBoletoByReference(ctx, idOrReference) !== null;
}

/**
 * A cob (API Pix) read as the gateway's ProviderCharge, given the payment that was confirmed for
 * it (or none). Pure: the calls that find and confirm the payment are in apiPixCharges.ts.
 *
 * Status, in the gateway's words:
 *  - CONCLUIDA with a confirmed payment → PAID (endToEndId, paidAt and payer from that payment);
 *  - CONCLUIDA without one (no Pix listed, or none that checks out) → not PAID: ACTIVE, or
 *    EXPIRED past its expiry. Money is credited on a confirmed payment only;
 *  - ATIVA → ACTIVE, or EXPIRED past criacao + expiracao (the standard's status does not follow
 *    expiry, but a PSP refuses to take payment for an expired cob);
 *  - REMOVIDA_PELO_USUARIO_RECEBEDOR → the reason we removed it for (closeCharge), else CANCELLED;
 *  - REMOVIDA_PELO_PSP → EXPIRED (PSPs remove cobs they will no longer collect).
 */
import { chargeIdOfTxid } from '../../core/pix/apiPixIds';
import { pixAmountToCents } from '../../core/pix/pixAmount';
import type { ProviderCharge, ProviderChargeStatus } from '../../core/provider';
import { payerOf } from '../../core/pix/receivedPix';
import type { Cob, Pix } from './pixApi';

export interface ChargeOfCobInput {
  cob: Cob;
  /** The Pix that paid the cob, already confirmed by GET /pix/{e2eid}; null when there is none. */
  payment: Pix | null;
  /** The QR image of the cob's pixCopiaECola (PNG, base64); '' when the cob has no code. */
  qrCodeBase64: string;
  /** Why we removed it, when this is closeCharge's answer. */
  closedFor?: 'EXPIRED' | 'CANCELLED';
  nowMs: number;
}

export function chargeOfCob({ cob, payment, qrCodeBase64, closedFor, nowMs }: ChargeOfCobInput): ProviderCharge {
  const createdMs = Date.parse(cob.calendario.criacao);
  const expiresMs = createdMs + cob.calendario.expiracao * 1000;
  const paid = cob.status === 'CONCLUIDA' && payment !== null;
  return {
    id: cob.txid,
    // Not one of ours: '' makes the settlement's reference check refuse it (REFERENCE_MISMATCH).
    reference: chargeIdOfTxid(cob.txid) ?? '',
    txid: cob.txid,
    status: paid ? 'PAID' : statusOf(cob, expiresMs, nowMs, closedFor),
    amountCents: pixAmountToCents(cob.valor.original),
    copyPaste: cob.pixCopiaECola ?? '',
    qrCodeBase64,
    expiresAt: new Date(expiresMs).toISOString(),
    createdAt: new Date(createdMs).toISOString(),
    paidAt: paid ? new Date(Date.parse(payment.horario)).toISOString() : null,
    endToEndId: paid ? payment.endToEndId : null,
    payer: paid ? payerOf(payment.pagador) : null,
  };
}

function statusOf(
  cob: Cob,
  expiresMs: number,
  nowMs: number,
  closedFor: 'EXPIRED' | 'CANCELLED' | undefined,
): ProviderChargeStatus {
  switch (cob.status) {
    case 'REMOVIDA_PELO_USUARIO_RECEBEDOR':
      return closedFor ?? 'CANCELLED';
    case 'REMOVIDA_PELO_PSP':
      return 'EXPIRED';
    default:
      return nowMs >= expiresMs ? 'EXPIRED' : 'ACTIVE';
  }
}

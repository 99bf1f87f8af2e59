/**
 * A cob as API Pix shows it: CobGerada (PUT, PATCH), CobCompleta (GET, with the Pix received)
 * and CobPayload (what its location serves, signed). Optional fields the cob does not have are
 * left out, never null: the document's schemas type them as strings and objects.
 */
import type { SandboxContext } from '../context';
import type { CobContent } from '../state';
import { findReceivedPixPaymentByE2e } from '../receivedPayments';
import { cobStatus, currentContent, type CobCharge } from './cobs';
import { pixJson } from './pixView';
import { centsToValor } from './valor';

function contentFields(content: CobContent) {
  return {
    ...(content.devedor ? { devedor: content.devedor } : {}),
    valor: { original: centsToValor(content.amountCents), modalidadeAlteracao: content.modalidadeAlteracao },
    chave: content.chave,
    ...(content.solicitacaoPagador !== null ? { solicitacaoPagador: content.solicitacaoPagador } : {}),
    ...(content.infoAdicionais ? { infoAdicionais: content.infoAdicionais } : {}),
  };
}

/** CobGerada: the cob at its current revision (or at `revisao`, which the caller checked exists). */
export function cobJson(rec: CobCharge, revisao = rec.cob.revisions.length - 1) {
  const content = rec.cob.revisions[revisao];
  const { loc } = rec.cob;
  return {
    calendario: { criacao: rec.charge.createdAt, expiracao: content.expiracao },
    txid: rec.charge.txid,
    revisao,
    // CobGerada requires the location's txid too (as PayloadLocationCompleta has it).
    loc: { id: loc.id, txid: rec.charge.txid, location: loc.location, tipoCob: 'cob', criacao: loc.criacao },
    location: loc.location,
    status: cobStatus(rec),
    ...contentFields(content),
    pixCopiaECola: rec.charge.copyPaste,
  };
}

/** CobCompleta: CobGerada plus the Pix that paid it. */
export function cobCompletaJson(ctx: SandboxContext, rec: CobCharge, revisao?: number) {
  const e2e = rec.charge.endToEndId;
  const payment = e2e ? findReceivedPixPaymentByE2e(ctx, e2e) : null;
  return { ...cobJson(rec, revisao), ...(payment ? { pix: [pixJson(ctx, payment)] } : {}) };
}

/** CobPayload: what the payer's PSP reads at the location; `apresentacao` is when it was fetched. */
export function cobPayloadJson(rec: CobCharge, presentedAt: Date) {
  const content = currentContent(rec);
  return {
    calendario: {
      criacao: rec.charge.createdAt,
      apresentacao: presentedAt.toISOString(),
      expiracao: content.expiracao,
    },
    txid: rec.charge.txid,
    revisao: rec.cob.revisions.length - 1,
    status: cobStatus(rec),
    ...contentFields(content),
  };
}

/**
 * A Pix received, as API Pix shows it (the document's Pix and Devolucao schemas), plus one PSP
 * extension: `pagador`, who paid, which the standard's Pix object does not carry (it has only the
 * payer's free text, infoPagador). The gateway prints it on receipts. Additional properties are
 * allowed by the document's schemas, so a client that validates against them still passes; a
 * client written for another PSP simply ignores it. Real PSPs differ here: some return nothing
 * about the payer, others similar data under names of their own.
 */
import { createHash } from 'node:crypto';
import type { ProviderTransfer } from '../../core/provider';
import type { SandboxContext } from '../context';
import { SANDBOX_ISPB } from '../payer';
import type { ReceivedPixPayment } from '../receivedPayments';
import type { DevolucaoRecord } from '../state';
import { centsToValor } from './valor';

/** The `pagador` extension: the payer as the pacs.008 names them (name, CPF or CNPJ, institution and account). */
export interface PixPagador {
  nome: string;
  cpf?: string;
  cnpj?: string;
  /** ISPB of the payer's institution (8 digits): what the gateway shows as the payer's bank. */
  ispbParticipante: string;
  /** The institution's name, as the sandbox knows it (a real PSP would take it from the ISPB). */
  nomeInstituicao: string;
  agencia: string;
  conta: string;
}

/** `statement`: the amount a test control makes the GET /pix list report instead (statement.ts). */
export function pixJson(ctx: SandboxContext, payment: ReceivedPixPayment, opts: { statement?: boolean } = {}) {
  const amountCents = opts.statement ? (payment.statementAmountCents ?? payment.amountCents) : payment.amountCents;
  const devolucoes = devolucoesOf(ctx, payment.endToEndId);
  const { payer } = payment;
  const pagador: PixPagador = {
    nome: payer.name,
    ...(payer.documentType === 'CNPJ' ? { cnpj: payer.document } : { cpf: payer.document }),
    ispbParticipante: payer.ispb,
    nomeInstituicao: payer.institution,
    agencia: payer.agency,
    conta: payer.account,
  };
  return {
    endToEndId: payment.endToEndId,
    txid: payment.txid,
    valor: centsToValor(amountCents),
    componentesValor: { original: { valor: centsToValor(amountCents) } },
    chave: payment.pixKey,
    horario: payment.paidAt,
    ...(devolucoes.length ? { devolucoes } : {}),
    pagador,
  };
}

export type DevolucaoStatus = 'EM_PROCESSAMENTO' | 'DEVOLVIDO' | 'NAO_REALIZADO';

/**
 * Every return of the payment, whichever API asked for it: API Pix devoluções with their own id,
 * and /v1 payment-returns under their transfer id (alphanumerics only, as a devolução id must be).
 */
export function devolucoesOf(ctx: SandboxContext, endToEndId: string) {
  const byTransfer = new Map(
    [...ctx.state.devolucoes.values()].filter((d) => d.endToEndId === endToEndId).map((d) => [d.transferId, d]),
  );
  return [...ctx.state.transfers.values()]
    .filter((t) => t.returnOf === endToEndId)
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
    .map((t) => {
      const devolucao = byTransfer.get(t.id);
      return devolucao ? devolucaoJson(ctx, devolucao) : paymentReturnJson(t);
    });
}

/** An API Pix devolução: EM_PROCESSAMENTO until settlesAt, then its transfer's outcome. */
export function devolucaoJson(ctx: SandboxContext, d: DevolucaoRecord) {
  const transfer = ctx.state.transfers.get(d.transferId);
  const settled = ctx.now().getTime() >= Date.parse(d.settlesAt);
  const status: DevolucaoStatus = !settled
    ? 'EM_PROCESSAMENTO'
    : transfer?.status === 'COMPLETED'
      ? 'DEVOLVIDO'
      : 'NAO_REALIZADO';
  return {
    id: d.id,
    rtrId: d.rtrId,
    valor: centsToValor(d.amountCents),
    natureza: 'ORIGINAL',
    ...(d.descricao !== null ? { descricao: d.descricao } : {}),
    horario: { solicitacao: d.requestedAt, ...(status === 'DEVOLVIDO' ? { liquidacao: d.settlesAt } : {}) },
    status,
    ...(status === 'NAO_REALIZADO'
      ? { motivo: (transfer?.failureReason ?? 'Devolução não realizada.').slice(0, 140) }
      : {}),
  };
}

/** A /v1 payment-return seen through API Pix: settled at once, so already DEVOLVIDO or NAO_REALIZADO. */
function paymentReturnJson(t: ProviderTransfer) {
  const done = t.status === 'COMPLETED';
  return {
    id: t.id.replace(/[^a-zA-Z0-9]/g, '').slice(0, 35),
    rtrId: returnIdentification(t.endToEndId, t.id, new Date(t.createdAt)),
    valor: centsToValor(t.amountCents),
    natureza: 'ORIGINAL',
    horario: { solicitacao: t.createdAt, ...(done ? { liquidacao: t.createdAt } : {}) },
    status: done ? 'DEVOLVIDO' : 'NAO_REALIZADO',
    ...(done ? {} : { motivo: (t.failureReason ?? 'Devolução não realizada.').slice(0, 140) }),
  };
}

/**
 * The pacs.004's ReturnIdentification: "D" + ISPB + yyyyMMddHHmm + 11 alphanumerics (32). A
 * return that moved money reuses its transfer's id; one that did not gets a stable one from `seed`.
 */
export function returnIdentification(endToEndId: string | null, seed: string, at: Date): string {
  if (endToEndId) return `D${endToEndId.slice(1)}`;
  const stamp = at.toISOString().slice(0, 16).replace(/[-T:]/g, '');
  const tail = createHash('sha256').update(seed).digest('hex').slice(0, 11);
  return `D${SANDBOX_ISPB}${stamp}${tail}`;
}

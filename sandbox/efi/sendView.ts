/**
 * A send as Efí shows it: the sent-Pix reads (PixEnviado) and the webhook's entry
 * (docs/standards/efi-pix.yaml). The recipient is shown as the DICT shows it (a CPF masked
 * ***.456.789-**, a CNPJ in full); a key the sandbox's DICT does not know is shown with the
 * document the client named, else as "Favorecido Sandbox" with the sandbox's test CPF, except a
 * key containing "invalid", which no DICT resolves (no identificacao).
 */
import { documentType } from '../../core/documents';
import type { SandboxContext } from '../context';
import { findDictEntry, maskForDirectory } from '../dict';
import { defaultPayer } from '../payer';
import { centsToValor } from '../pixApi/valor';
import type { EfiSendRecord, EfiSendReturn } from '../state';
import { sendStatus } from './sends';

function identificacao(ctx: SandboxContext, send: EfiSendRecord): Record<string, string> | null {
  if (send.recipientKey.toLowerCase().includes('invalid')) return null;
  const entry = findDictEntry(ctx.state, send.recipientKey);
  const nome = entry?.ownerName ?? 'Favorecido Sandbox';
  const document = entry?.ownerDocument ?? send.recipientDocument ?? defaultPayer().document;
  const type = documentType(document) ?? 'CPF';
  return { nome, [type === 'CNPJ' ? 'cnpj' : 'cpf']: maskForDirectory(document, type) };
}

function devolucaoJson(d: EfiSendReturn) {
  return {
    id: d.id,
    rtrId: d.rtrId,
    valor: centsToValor(d.amountCents),
    horario: { solicitacao: d.at, liquidacao: d.at },
    status: 'DEVOLVIDO',
  };
}

/**
 * GET /v2/gn/pix/enviados/… (one entry of the list too). `statement`: the list, which reports the
 * amount a test control set for the transfer (POST /sandbox/transfers/:reference/statement-amount,
 * a provider-side disagreement for reconciliation tests); the reads by id never do.
 */
export function pixEnviadoJson(ctx: SandboxContext, send: EfiSendRecord, opts: { statement?: boolean } = {}) {
  const status = sendStatus(ctx, send);
  const id = identificacao(ctx, send);
  const amountCents = opts.statement
    ? (ctx.state.transferStatementAmounts.get(send.transferId) ?? send.amountCents)
    : send.amountCents;
  return {
    endToEndId: send.endToEndId,
    idEnvio: send.idEnvio,
    valor: centsToValor(amountCents),
    chave: send.payerKey,
    status,
    ...(send.infoPagador ? { infoPagador: send.infoPagador } : {}),
    horario: {
      solicitacao: send.requestedAt,
      ...(status === 'REALIZADO' ? { liquidacao: send.settlesAt } : {}),
    },
    favorecido: { chave: send.recipientKey, ...(id ? { identificacao: id } : {}) },
    ...(send.devolucoes.length ? { devolucoes: send.devolucoes.map(devolucaoJson) } : {}),
  };
}

/**
 * The entry of {"pix": [...]} POSTed to the payer key's webhook once the send settled: Efí's
 * "Pix enviado" example, `horario` the settlement time (a string) or null when NAO_REALIZADO.
 */
export function sentPixNotification(send: EfiSendRecord) {
  const made = send.outcome === 'REALIZADO';
  return {
    endToEndId: send.endToEndId,
    chave: send.payerKey,
    tipo: 'SOLICITACAO',
    status: send.outcome,
    valor: centsToValor(send.amountCents),
    horario: made ? send.settlesAt : null,
    ...(send.infoPagador ? { infoPagador: send.infoPagador } : {}),
    gnExtras: { idEnvio: send.idEnvio, ...(send.erro ? { erro: send.erro } : {}) },
    ...(send.devolucoes.length ? { devolucoes: send.devolucoes.map(devolucaoJson) } : {}),
  };
}

/**
 * Efí's send (PUT /v3/gn/pix/{idEnvio}) on the sandbox's one transfer store. A send refused up
 * front (400) records nothing; an accepted one is a ProviderTransfer with reference = idEnvio
 * (COMPLETED, or FAILED with the ISO 20022 code as failureCode) plus an EfiSendRecord with what
 * Efí shows. The outcome is decided at acceptance, deterministically, so tests choose it:
 *  - favorecido.chave containing "invalid" (any case) → NAO_REALIZADO, AC03;
 *  - containing "refuse"                              → NAO_REALIZADO, DS04;
 *  - valor above the sending account's balance (balances.ts) → NAO_REALIZADO, AM04 (so a
 *    balance never goes below zero through a send);
 *  - anything else                                    → REALIZADO.
 * It reads EM_PROCESSAMENTO until settlesAt (accepted + settleMs), then the outcome: derived on
 * read, so a restart loses no outcome (only the webhook a timer would have sent).
 */
import { documentType } from '../../core/documents';
import { generateEndToEndId } from '../../core/pix/brcode';
import { randomAlphanumeric } from '../../core/pix/random';
import type { PixKeyType, ProviderTransfer } from '../../core/provider';
import type { SandboxAccount } from '../accounts';
import { accountBalanceCents, keepAfterSend } from '../balances';
import type { SandboxContext } from '../context';
import { findDictEntry } from '../dict';
import { SandboxHttpError } from '../errors';
import { SANDBOX_ISPB } from '../payer';
import { centsToValor, VALOR_RE } from '../pixApi/valor';
import type { EfiSendError, EfiSendRecord, EfiSendReturn } from '../state';
import { invalid, isObject, onlyKeys } from './bodyChecks';
import { EfiError } from './errors';

export const ID_ENVIO_RE = /^[a-zA-Z0-9]{1,35}$/;
/** The five DICT key forms (docs/standards/efi-pix.yaml ChavePix): CPF, CNPJ, phone, e-mail, EVP. */
export const PIX_KEY_RE =
  /^(\d{11}|\d{14}|\+[1-9]\d{1,14}|[^@\s]+@[^@\s]+\.[^@\s]+|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$/;

export interface EfiSendOptions {
  /** How long a send reads EM_PROCESSAMENTO. */
  settleMs: number;
}

interface SendInput {
  amountCents: number;
  payerKey: string;
  infoPagador: string | null;
  recipientKey: string;
  recipientDocument: string | null;
}

/** The body by the document's schema (400 valor_invalido), then the keys (400 chave_invalida). */
function readBody(ctx: SandboxContext, account: SandboxAccount, body: unknown): SendInput {
  if (!isObject(body)) throw invalid('O corpo deve ser um objeto JSON com valor, pagador e favorecido.');
  onlyKeys(body, ['valor', 'pagador', 'favorecido'], 'body');
  const { valor, pagador, favorecido } = body;
  if (typeof valor !== 'string' || !VALOR_RE.test(valor))
    throw invalid('Campo valor deve ser uma string com duas casas decimais, como 12.34.');
  const amountCents = Number(valor.replace('.', ''));
  if (amountCents <= 0) throw invalid('Campo valor deve ser maior que zero.');
  if (!isObject(pagador) || typeof pagador.chave !== 'string') throw invalid('Campo pagador.chave é obrigatório.');
  onlyKeys(pagador, ['chave', 'infoPagador'], 'pagador');
  if (
    pagador.infoPagador !== undefined &&
    (typeof pagador.infoPagador !== 'string' || pagador.infoPagador.length > 140)
  )
    throw invalid('Campo pagador.infoPagador deve ter no máximo 140 caracteres.');
  if (!isObject(favorecido)) throw invalid('Campo favorecido é obrigatório.');
  if (favorecido.contaBanco !== undefined)
    throw invalid(
      'favorecido.contaBanco (envio por dados bancários) não é simulado por este sandbox: use favorecido.chave.',
    );
  onlyKeys(favorecido, ['chave', 'cpf', 'cnpj'], 'favorecido');
  if (typeof favorecido.chave !== 'string') throw invalid('Campo favorecido.chave é obrigatório.');
  if (favorecido.cpf !== undefined && favorecido.cnpj !== undefined)
    throw invalid('Informe favorecido.cpf ou favorecido.cnpj, não ambos.');
  if (favorecido.cpf !== undefined && (typeof favorecido.cpf !== 'string' || !/^\d{11}$/.test(favorecido.cpf)))
    throw invalid('Documento CPF em favorecido.cpf é inválido.');
  if (favorecido.cnpj !== undefined && (typeof favorecido.cnpj !== 'string' || !/^\d{14}$/.test(favorecido.cnpj)))
    throw invalid('Documento CNPJ em favorecido.cnpj é inválido.');
  // pagador.chave must be a key of the token's account (the keys API Pix's cobs may name).
  if (!ctx.accounts.owns(account, pagador.chave))
    throw new EfiError(400, 'chave_invalida', 'A chave informada não faz referência à conta Efí autenticada.');
  if (favorecido.chave.length > 77 || !PIX_KEY_RE.test(favorecido.chave))
    throw new EfiError(400, 'chave_invalida', 'A chave do favorecido não é uma chave Pix válida.');
  return {
    amountCents,
    payerKey: pagador.chave,
    infoPagador: typeof pagador.infoPagador === 'string' ? pagador.infoPagador : null,
    recipientKey: favorecido.chave,
    recipientDocument: (favorecido.cpf ?? favorecido.cnpj ?? null) as string | null,
  };
}

function keyType(key: string): PixKeyType {
  if (/^\d{11}$/.test(key)) return 'CPF';
  if (/^\d{14}$/.test(key)) return 'CNPJ';
  if (key.startsWith('+')) return 'PHONE';
  if (key.includes('@')) return 'EMAIL';
  return 'EVP';
}

function decide(ctx: SandboxContext, account: SandboxAccount, input: SendInput): EfiSendError | null {
  const key = input.recipientKey.toLowerCase();
  if (key.includes('invalid'))
    return {
      codigo: 'AC03',
      origem: 'PSP do usuário recebedor',
      motivo: 'Número da agência e/ou conta transacional do usuário recebedor inexistente ou inválido',
    };
  if (key.includes('refuse'))
    return {
      codigo: 'DS04',
      origem: 'PSP do usuário recebedor',
      motivo: 'Ordem rejeitada pelo PSP do usuário recebedor',
    };
  if (input.amountCents > accountBalanceCents(ctx, account))
    return {
      codigo: 'AM04',
      origem: 'PSP do usuário pagador',
      motivo: 'Saldo insuficiente na conta do usuário pagador',
    };
  return null;
}

/**
 * PUT /v3/gn/pix/{idEnvio}. Every call with a well-formed idEnvio counts in transferStats
 * (`requests`); `created` counts the accepted one. 409 id_envio_duplicado once one was accepted.
 */
export function createSend(
  ctx: SandboxContext,
  opts: EfiSendOptions,
  account: SandboxAccount,
  idEnvio: string,
  body: unknown,
): EfiSendRecord {
  if (!ID_ENVIO_RE.test(idEnvio)) throw invalid('idEnvio deve ter de 1 a 35 caracteres alfanuméricos.');
  const { state } = ctx;
  const stats = state.transferStats.get(idEnvio) ?? { requests: 0, created: 0 };
  stats.requests++;
  state.transferStats.set(idEnvio, stats);
  ctx.journal.transferStats(idEnvio, stats);
  if (state.efiSends.has(idEnvio))
    throw new EfiError(409, 'id_envio_duplicado', 'O id de envio informado já foi utilizado em outro pagamento.');

  const input = readBody(ctx, account, body);
  const owner = findDictEntry(state, input.recipientKey);
  if (input.recipientDocument && owner && owner.ownerDocument !== input.recipientDocument)
    throw new EfiError(
      400,
      'chave_nao_pertence_ao_documento',
      `O ${documentType(input.recipientDocument) === 'CNPJ' ? 'cnpj' : 'cpf'} do favorecido é diferente do documento em posse da chave.`,
    );

  const revision = state.revision;
  const erro = decide(ctx, account, input);
  const now = ctx.now();
  const endToEndId = generateEndToEndId(SANDBOX_ISPB, now);
  const transfer: ProviderTransfer = {
    id: `sbx_tr_${randomAlphanumeric(24)}`,
    reference: idEnvio,
    status: erro ? 'FAILED' : 'COMPLETED',
    amountCents: input.amountCents,
    pixKey: input.recipientKey,
    pixKeyType: keyType(input.recipientKey),
    recipientName: owner?.ownerName ?? '',
    endToEndId: erro ? null : endToEndId,
    failureCode: erro?.codigo ?? null,
    failureReason: erro?.motivo ?? null,
    createdAt: now.toISOString(),
  };
  const send: EfiSendRecord = {
    idEnvio,
    endToEndId,
    transferId: transfer.id,
    amountCents: input.amountCents,
    payerKey: input.payerKey,
    infoPagador: input.infoPagador,
    recipientKey: input.recipientKey,
    recipientDocument: input.recipientDocument,
    requestedAt: now.toISOString(),
    settlesAt: new Date(now.getTime() + opts.settleMs).toISOString(),
    outcome: erro ? 'NAO_REALIZADO' : 'REALIZADO',
    erro,
    devolucoes: [],
  };
  stats.created++;
  ctx.journal.transfer(transfer);
  ctx.journal.efiSend(send);
  ctx.journal.transferStats(idEnvio, stats);
  state.transfers.set(transfer.id, transfer);
  state.efiSends.set(idEnvio, send);
  keepAfterSend(ctx, revision, send);
  ctx.logger.info(
    { idEnvio, transferId: transfer.id, outcome: send.outcome, codigo: erro?.codigo },
    'efi send accepted',
  );
  return send;
}

export type EfiSendStatus = 'EM_PROCESSAMENTO' | 'REALIZADO' | 'NAO_REALIZADO';

export function sendStatus(ctx: SandboxContext, send: EfiSendRecord): EfiSendStatus {
  return ctx.now().getTime() >= Date.parse(send.settlesAt) ? send.outcome : 'EM_PROCESSAMENTO';
}

/** Whether the send was made from one of the account's keys. */
export function sentBy(ctx: SandboxContext, account: SandboxAccount, send: EfiSendRecord): boolean {
  return ctx.accounts.ownerOf(send.payerKey).id === account.id;
}

export function findSendByEndToEndId(ctx: SandboxContext, endToEndId: string): EfiSendRecord | null {
  for (const send of ctx.state.efiSends.values()) if (send.endToEndId === endToEndId) return send;
  return null;
}

/**
 * Test control: the recipient returns `amountCents` of a REALIZADO send (never more than was
 * sent, in total). The money comes back to the balance; the caller notifies the webhook.
 */
export function returnSend(
  ctx: SandboxContext,
  idEnvio: string,
  amountCents: number,
): { send: EfiSendRecord; devolucao: EfiSendReturn } {
  const send = ctx.state.efiSends.get(idEnvio);
  if (!send) throw new SandboxHttpError(404, 'EFI_SEND_NOT_FOUND', `no Efí send with idEnvio ${idEnvio}`);
  const status = sendStatus(ctx, send);
  if (status !== 'REALIZADO')
    throw new SandboxHttpError(
      409,
      'EFI_SEND_NOT_RETURNABLE',
      `only a REALIZADO send can be returned (it is ${status})`,
    );
  const returned = send.devolucoes.reduce((s, d) => s + d.amountCents, 0);
  if (returned + amountCents > send.amountCents)
    throw new SandboxHttpError(
      409,
      'RETURN_EXCEEDS_SEND',
      `the returns would exceed what was sent (${centsToValor(send.amountCents)}, ${centsToValor(returned)} already returned)`,
    );
  const now = ctx.now();
  const stamp = now.toISOString().slice(0, 16).replace(/[-T:]/g, '');
  const devolucao: EfiSendReturn = {
    id: `sbxdev${randomAlphanumeric(14)}`,
    rtrId: `D${SANDBOX_ISPB}${stamp}${randomAlphanumeric(11)}`,
    amountCents,
    at: now.toISOString(),
  };
  send.devolucoes.push(devolucao);
  ctx.journal.efiSend(send);
  ctx.logger.info({ idEnvio, amountCents }, 'efi send returned by the recipient');
  return { send, devolucao };
}

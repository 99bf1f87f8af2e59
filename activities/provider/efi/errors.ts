/**
 * Efí's own routes (`/v2/gn/…`, `/v3/gn/…`) answer errors as `{"nome", "mensagem"}`, not as the
 * BCB's problem+json. Their mapping to ProviderErrors follows the API Pix client's contract
 * (pixApi/errors.ts): no answer, 5xx, 408 and 429 are transient; a refusal in Efí's form is a
 * permanent ProviderError under OUR code (Efí's words go to `detail`, never to `message`); an
 * answer we cannot read is "outcome unknown" (transient: read the resource back before acting).
 */
import { ProviderError } from '../../../core/provider';
import { retryAfterMs } from '../../../core/net/retryAfter';
import { logSafe, outcomeUnknown, PixApiErrorCodes, problemOf, problemTypeName, statusError } from '../pixApi/errors';
import type { HttpAnswer } from '../pixApi/transport';
import { efiErrorSchema } from './schemas';

export const EfiErrorCodes = {
  /** 409 id_envio_duplicado: an earlier PUT with this idEnvio was accepted. Resolve by GET. */
  sendIdUsed: 'SEND_ID_ALREADY_USED',
  /** Still EM_PROCESSAMENTO after our wait: transient, ask again (GET) later. */
  processing: 'TRANSFER_PROCESSING',
  refused: 'PROVIDER_REJECTED',
  /** Split Pix: the account has no split configuration of this id (or the cob no link). */
  splitConfigNotFound: 'SPLIT_CONFIG_NOT_FOUND',
  /** Split Pix: the PSP refused the configuration or the link (shares, favorecido, a cob no longer ATIVA). */
  splitRefused: 'SPLIT_REFUSED',
} as const;

/**
 * Efí's refusals of a send, to the failure codes merchants already see (core/transfers/failures.ts).
 * A refusal answered at once records nothing at Efí (the GET by idEnvio confirms it before we release).
 */
export const SEND_REFUSALS: Readonly<Record<string, string>> = {
  chave_nao_pertence_ao_documento: 'RECIPIENT_DOCUMENT_MISMATCH',
  chave_invalida: 'INVALID_PIX_KEY',
  documento_bloqueado: 'RECIPIENT_BLOCKED',
  valor_invalido: 'INVALID_AMOUNT',
  pagamento_negado: 'PAYMENT_DENIED',
  saldo_insuficiente: 'INSUFFICIENT_FUNDS',
};

/** Efí's names for "no such resource" on the routes we read (a bare 404 page is not one). */
const NOT_FOUND_NAMES = new Set(['PixEnviadoNaoEncontrado', 'InfracaoNaoEncontrada']);
/**
 * "No such split configuration" (or no link on the cob): the sandbox's name (Efí's SDK shows
 * none); a real Efí answering another name is SPLIT_REFUSED, never a silent null.
 */
const SPLIT_NOT_FOUND_NAMES = new Set(['split_nao_encontrado']);

/**
 * Efí answers in two forms (docs/standards/efi-pix.yaml): `{"nome", "mensagem"}` on the send and
 * the balance, RFC 7807 problems (`type` ending in the name) on the sent-Pix reads and MED.
 */
export function efiErrorName(answer: HttpAnswer): string | null {
  const own = efiErrorSchema.safeParse(json(answer.text));
  if (own.success) return own.data.nome;
  const problem = problemOf(answer.text);
  return problem ? problemTypeName(problem) : null;
}

function json(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function isEfiNotFound(answer: HttpAnswer): boolean {
  const name = answer.status === 404 ? efiErrorName(answer) : null;
  return name !== null && NOT_FOUND_NAMES.has(name);
}

/** Our code for a refusal of a send (and of the routes without codes of their own: balance, MED). */
function sendRefusalCode(status: number, name: string): string {
  if (status === 409 && name === 'id_envio_duplicado') return EfiErrorCodes.sendIdUsed;
  return (Object.hasOwn(SEND_REFUSALS, name) ? SEND_REFUSALS[name] : null) ?? EfiErrorCodes.refused;
}

/**
 * Our code for a refusal of a Split Pix route: the cob or the configuration unknown to the
 * account, or the configuration or link refused. Never a send's code: a split's `valor_invalido`
 * is a share that does not fit, not an amount the payer may correct.
 */
function splitRefusalCode(status: number, name: string): string {
  if (status === 404 && name === 'CobNaoEncontrado') return PixApiErrorCodes.cobNotFound;
  if (status === 404 && SPLIT_NOT_FOUND_NAMES.has(name)) return EfiErrorCodes.splitConfigNotFound;
  return EfiErrorCodes.splitRefused;
}

/** Efí's Split Pix routes' errors: as efiAnswerError, with the split's codes. */
export function efiSplitAnswerError(answer: HttpAnswer, what: string, nowMs: number): ProviderError {
  return efiAnswerError(answer, what, nowMs, splitRefusalCode);
}

/** A 404 saying the account has no such split configuration, or no link on the cob. */
export function isSplitNotFound(answer: HttpAnswer): boolean {
  const name = answer.status === 404 ? efiErrorName(answer) : null;
  return name !== null && SPLIT_NOT_FOUND_NAMES.has(name);
}

export function efiAnswerError(
  answer: HttpAnswer,
  what: string,
  nowMs: number,
  refusalCode: (status: number, name: string) => string = sendRefusalCode,
): ProviderError {
  const { status } = answer;
  const name = efiErrorName(answer);
  const detail = logSafe(answer.text) || null;
  const wait = retryAfterMs(header(answer, 'retry-after'), nowMs);
  const label = `${what} → ${status}`;
  const common = statusError(status, label, { retryAfterMs: wait, detail });
  if (common) return common;
  if (status === 403)
    return new ProviderError(`${label}: access denied (scope?)`, PixApiErrorCodes.accessDenied, false, status, {
      detail,
    });
  if (status >= 400 && name !== null) {
    const code = refusalCode(status, name);
    return new ProviderError(`${label}: refused by the PSP (${code})`, code, false, status, { detail });
  }
  return outcomeUnknown(what, status, "not an answer in Efí's form", answer.text);
}

function header(answer: HttpAnswer, name: string): string | null {
  const value = answer.headers[name];
  return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
}

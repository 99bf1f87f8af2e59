/**
 * API Pix answers that are not the expected success, as ProviderErrors. The contract with the
 * retry logic above us (the same philosophy as httpPixProvider.ts):
 *  - no answer (network error, TLS refusal, timeout), 5xx, 408, 429 → transient: retry with the
 *    same txid / devolução id, after `retryAfterMs` when the PSP gave one;
 *  - a 4xx problem+json (RFC 7807, the standard's `Problema`, with or without `violacoes`) → a
 *    permanent refusal under OUR code; the PSP's words go to `detail` (logs), never to `message`;
 *  - anything else (a 2xx that does not parse, a redirect, a 4xx page that is no problem) →
 *    PROVIDER_OUTCOME_UNKNOWN, transient: the call may have taken effect, so the caller reads the
 *    resource (GET) before releasing or re-sending anything.
 * A 401 is renewed and retried once by the client; the one that survives that is PROVIDER_AUTH_FAILED.
 */
import { ProviderError } from '../../../core/provider';
import { retryAfterMs } from '../../../core/net/retryAfter';
import { problemSchema, type Problem } from './schemas';
import type { HttpAnswer } from './transport';

export const PixApiErrorCodes = {
  unavailable: 'PROVIDER_UNAVAILABLE',
  timeout: 'PROVIDER_TIMEOUT',
  rateLimited: 'PROVIDER_RATE_LIMITED',
  outcomeUnknown: 'PROVIDER_OUTCOME_UNKNOWN',
  /** The token endpoint answered 2xx without a usable token: nothing reached the API. */
  badTokenAnswer: 'PROVIDER_BAD_RESPONSE',
  authFailed: 'PROVIDER_AUTH_FAILED',
  /**
   * The token endpoint took the client id and secret but refused the mutual-TLS certificate: it
   * is not one of that client's account (tokenSource.ts CERTIFICATE_REFUSED_ERRORS).
   */
  certificateRefused: 'PROVIDER_CERTIFICATE_REFUSED',
  accessDenied: 'PROVIDER_ACCESS_DENIED',
  rejected: 'PROVIDER_REJECTED',
  /** A request we refused to send: our bug, caught before the PSP saw it. */
  invalidRequest: 'PIX_API_INVALID_REQUEST',
  cobNotFound: 'COB_NOT_FOUND',
  cobRefused: 'COB_REFUSED',
  pixNotFound: 'PIX_NOT_FOUND',
  devolucaoNotFound: 'DEVOLUCAO_NOT_FOUND',
  devolucaoRefused: 'DEVOLUCAO_REFUSED',
  webhookNotFound: 'WEBHOOK_NOT_FOUND',
  webhookRefused: 'WEBHOOK_REFUSED',
  // Pix Automático (pixAutomaticoClient.ts). The standard defines no "not found" type of its own
  // for these: its general NaoEncontrado (or any 404/410 problem) is the not-found code, any other
  // 4xx problem (400 RecOperacaoInvalida, a PSP's 409 or 422 for a state conflict) the refusal.
  recNotFound: 'REC_NOT_FOUND',
  recRefused: 'REC_REFUSED',
  locRecNotFound: 'LOCREC_NOT_FOUND',
  locRecRefused: 'LOCREC_REFUSED',
  solicRecNotFound: 'SOLICREC_NOT_FOUND',
  solicRecRefused: 'SOLICREC_REFUSED',
  cobrNotFound: 'COBR_NOT_FOUND',
  cobrRefused: 'COBR_REFUSED',
} as const;

/** Our codes for one operation's refusals: the PSP's problem type picks between them. */
export interface OperationCodes {
  refused: string;
  notFound: string;
}

/** The standard's "does not exist" problem types (`…/error/<type>`), each with our code. */
const NOT_FOUND_TYPES = {
  CobNaoEncontrado: PixApiErrorCodes.cobNotFound,
  PixNaoEncontrado: PixApiErrorCodes.pixNotFound,
  PixDevolucaoNaoEncontrada: PixApiErrorCodes.devolucaoNotFound,
  WebhookNaoEncontrado: PixApiErrorCodes.webhookNotFound,
} as const;
/** A specific type, or the standard's general NaoEncontrado (the only one its Pix Automático routes define). */
export type NotFoundProblemType = keyof typeof NOT_FOUND_TYPES | 'NaoEncontrado';

const DETAIL_MAX = 500;
/** The standard's namespace of problem types ("Tratamento de erros" in the document). */
const BCB_ERROR_TYPES = 'https://pix.bcb.gov.br/api/v2/error/';

export function networkError(err: unknown, what: string, timedOut: boolean, timeoutMs: number): ProviderError {
  if (timedOut) return new ProviderError(`${what}: no answer within ${timeoutMs}ms`, PixApiErrorCodes.timeout, true);
  // Duck-typed, not instanceof: errors may come from another realm (jest's sandbox).
  const { code, cause } = (err ?? {}) as { code?: unknown; cause?: { code?: unknown } };
  const reason = [code, cause?.code].find((c): c is string => typeof c === 'string' && /^[A-Z0-9_]{1,80}$/.test(c));
  return new ProviderError(
    `${what}: no answer from the PSP${reason ? ` (${reason})` : ''}`,
    PixApiErrorCodes.unavailable,
    true,
    null,
    { detail: errorText(err) },
  );
}

/** A 2xx (or any answer we cannot classify) whose content we cannot trust: outcome unknown. */
export function outcomeUnknown(what: string, status: number, why: string, text = ''): ProviderError {
  return new ProviderError(
    `${what} → ${status}: ${why}; outcome unknown, read it back before acting`,
    PixApiErrorCodes.outcomeUnknown,
    true,
    status,
    {
      detail: text ? truncate(text) : null,
    },
  );
}

/** Every non-2xx answer of the API (the token endpoint has its own, tokenSource.ts). */
export function answerError(answer: HttpAnswer, what: string, codes: OperationCodes, nowMs: number): ProviderError {
  const { status } = answer;
  const problem = problemOf(answer.text);
  const detail = problem ? problemDetail(problem) : truncate(answer.text) || null;
  const wait = retryAfterMs(header(answer, 'retry-after'), nowMs);
  const typeName = problem ? problemTypeName(problem) : null;
  // Only the standard's own type names reach the message: a PSP's private types are its words.
  const label = `${what} → ${status}${typeName && problem?.type.startsWith(BCB_ERROR_TYPES) ? ` ${typeName}` : ''}`;

  const common = statusError(status, label, { retryAfterMs: wait, detail });
  if (common) return common;
  if (status >= 400 && problem) {
    const code = status === 403 ? PixApiErrorCodes.accessDenied : refusalCode(status, typeName, codes);
    return new ProviderError(`${label}: refused by the PSP (${code})`, code, false, status, { detail });
  }
  return outcomeUnknown(what, status, 'not an API Pix answer', answer.text);
}

/**
 * What a status says whatever the body, on any PSP route (API Pix's, or a PSP's own): 429 rate
 * limited, 408/504 timed out and 5xx unavailable are transient (after `retryAfterMs` when given);
 * 401 is our credentials refused. Null for every other status: the body decides.
 */
export function statusError(
  status: number,
  label: string,
  extras: { retryAfterMs: number | null; detail: string | null },
): ProviderError | null {
  if (status === 429)
    return new ProviderError(`${label}: rate limited by the PSP`, PixApiErrorCodes.rateLimited, true, status, extras);
  if (status === 408 || status === 504)
    return new ProviderError(`${label}: the PSP timed out`, PixApiErrorCodes.timeout, true, status, extras);
  if (status >= 500)
    return new ProviderError(`${label}: the PSP is unavailable`, PixApiErrorCodes.unavailable, true, status, extras);
  if (status === 401)
    return new ProviderError(`${label}: the PSP refused our credentials`, PixApiErrorCodes.authFailed, false, status, {
      detail: extras.detail,
    });
  return null;
}

/** Whether a 404 says the entity does not exist: the specific type, or the standard's general one. */
export function isNotFoundProblem(answer: HttpAnswer, specificType: NotFoundProblemType): boolean {
  if (answer.status !== 404) return false;
  const problem = problemOf(answer.text);
  const typeName = problem ? problemTypeName(problem) : null;
  // A bare 404 (a proxy page, a wrong base URL) is not "no such cob": it would make a paid
  // charge look unknown, so only the standard's problem types count.
  return typeName === specificType || typeName === 'NaoEncontrado';
}

function refusalCode(status: number, typeName: string | null, codes: OperationCodes): string {
  // Own keys only: a PSP's type named "constructor" must not reach Object.prototype.
  if (typeName && Object.hasOwn(NOT_FOUND_TYPES, typeName))
    return NOT_FOUND_TYPES[typeName as keyof typeof NOT_FOUND_TYPES];
  if (status === 404 || status === 410) return codes.notFound;
  return codes.refused;
}

export function problemOf(text: string): Problem | null {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = problemSchema.safeParse(json);
  return parsed.success ? parsed.data : null;
}

/** `https://pix.bcb.gov.br/api/v2/error/CobOperacaoInvalida` → `CobOperacaoInvalida`; anything odd → null. */
export function problemTypeName(problem: Problem): string | null {
  const last = problem.type.replace(/\/+$/, '').split('/').pop() ?? '';
  return /^[A-Za-z]{1,60}$/.test(last) ? last : null;
}

/**
 * The PSP's own words for the logs: title, detail and each violation's reason and property.
 * A violation's `valor` is left out: it echoes what we sent, which may be a payer's CPF.
 */
function problemDetail(problem: Problem): string {
  const parts = [
    problem.title,
    problem.detail,
    ...(problem.violacoes ?? []).map((v) => [v.propriedade, v.razao].filter(Boolean).join(': ')),
  ];
  if (problem.correlationId) parts.push(`correlationId ${problem.correlationId}`);
  return truncate(parts.filter(Boolean).join(' | '));
}

/** A PSP's text made fit for a log line: one line (control characters would forge lines), bounded. */
export function logSafe(text: string, max = DETAIL_MAX): string {
  const clean = text.replace(/\p{Cc}+/gu, ' ').trim();
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}

function truncate(text: string): string {
  return logSafe(text);
}

function errorText(err: unknown): string | null {
  const { message, cause } = (err ?? {}) as { message?: unknown; cause?: { message?: unknown } };
  const text = [message, cause?.message].filter((m): m is string => typeof m === 'string').join(': ');
  return text ? truncate(text) : null;
}

function header(answer: HttpAnswer, name: string): string | null {
  const value = answer.headers[name];
  return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
}

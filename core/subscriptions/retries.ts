/**
 * Retries of a cycle's cobr after its due date (docs/standards/api-pix-2.9.0.yaml: `CobRTentativas`
 * and `POST /cobr/{txid}/retentativa/{data}`; ../shared/spec/pix-automatico.md, after Asaas's
 * "retry process" and Celcoin's "retentativas"). Pure: the workflow passes the cobr as the PSP last
 * showed it and today's date in Brasília, and does what this answers.
 *
 * - A cobr that has ended (CONCLUIDA, REJEITADA, CANCELADA, EXPIRADA) decides the cycle,
 *   whatever its attempts show.
 * - Under NAO_PERMITE, never.
 * - Under PERMITE_3R_7D: at most 3 retries, each on a date of its own, within the 7 calendar days
 *   after the settlement date and before the next cycle's settlement date, each a future date (the
 *   PSP refuses today or a past day), one at a time (the PSP refuses a retry while an attempt is
 *   SOLICITADA or AGENDADA). The payer PSP's second try on the due date itself (18:00–21:00) is
 *   its own, not a retry, and does not count.
 * - A rejection code of the first list below rejects the whole cobr (the BCB document, on the
 *   attempt's `rejeicao.codigo`): the cycle fails at once. Any other code rejects one attempt.
 * The date asked for is the earliest allowed one: the day after today (and after the last
 * attempt), so the three retries fit in the 7 days.
 */
import { addDays, daysBetween } from '../boletos/dates';

export type RetryPolicy = 'NAO_PERMITE' | 'PERMITE_3R_7D';
export const MAX_RETRIES = 3;
export const RETRY_WINDOW_DAYS = 7;

/** Codes that reject the whole cobr (`CobRTentativas…rejeicao.codigo`'s description). */
export const COBR_REJECTION_CODES = ['AC05', 'AM09', 'DENC', 'DS27', 'DTED', 'MIDI', 'MSUC', 'NITX', 'RC09'] as const;
/** The document's other codes: they reject one attempt, and a retry may follow. */
export const ATTEMPT_REJECTION_CODES = [
  'AB10',
  'AC06',
  'AM02',
  'DTNT',
  'FBRD',
  'IRNT',
  'NIEC',
  'NIPA',
  'QUNT',
  'UDEI',
] as const;

export function rejectsWholeCobr(code: string | undefined): boolean {
  return code !== undefined && (COBR_REJECTION_CODES as readonly string[]).includes(code);
}

export type AttemptStatus = 'SOLICITADA' | 'AGENDADA' | 'PAGA' | 'CANCELADA' | 'REJEITADA' | 'EXPIRADA';

export interface Attempt {
  /** `dataLiquidacao`. */
  date: string;
  status: AttemptStatus;
  /** `rejeicao.codigo`, when rejected. */
  rejectionCode?: string;
}

/** The cobr's own status (`CobRStatus`) and, when REJEITADA, its `encerramento.rejeicao.codigo`. */
export interface CobrOutcome {
  status: 'CRIADA' | 'ATIVA' | 'CONCLUIDA' | 'EXPIRADA' | 'REJEITADA' | 'CANCELADA';
  rejectionCode?: string;
}

export interface RetryInput {
  policy: RetryPolicy;
  /**
   * The cobr as a whole; absent: judged by its attempts alone. A cobr can end with no attempt
   * (the payer's PSP refused to schedule it, e.g. an amount above the payer's maximum).
   */
  cobr?: CobrOutcome;
  /** The cycle's settlement date (CycleDue.settlementDate): the first attempt's day. */
  settlementDate: string;
  /** The next cycle's settlement date; absent when this is the recurrence's last cycle. */
  nextSettlementDate?: string;
  /** Every attempt of the cobr (`tentativas`), the first one's included, in any order. */
  attempts: readonly Attempt[];
  /** Today in Brasília. */
  today: string;
}

export type RetryDecision =
  | { kind: 'RETRY'; date: string }
  /** An attempt is SOLICITADA or AGENDADA (or none has been made yet): wait for its outcome. */
  | { kind: 'WAIT' }
  | { kind: 'PAID' }
  /** The cycle has failed for good. */
  | { kind: 'FAILED'; reason: CycleFailure; rejectionCode?: string };

export type CycleFailure =
  /** NAO_PERMITE, and the attempt on the due date failed. */
  | 'RETRIES_NOT_ALLOWED'
  /** A code that rejects the whole cobr, or the cobr REJEITADA. */
  | 'COBR_REJECTED'
  /** The cobr was CANCELADA (by the payer, either PSP or the merchant) before it was paid. */
  | 'COBR_CANCELLED'
  /** The cobr was EXPIRADA. */
  | 'COBR_EXPIRED'
  /** Three retries made, all failed. */
  | 'RETRIES_EXHAUSTED'
  /** No future date is left within the 7 days and before the next cycle. */
  | 'RETRY_WINDOW_CLOSED';

export function retryDecision(input: RetryInput): RetryDecision {
  const attempts = [...input.attempts].sort((a, b) => a.date.localeCompare(b.date));
  if (attempts.some((a) => a.status === 'PAGA') || input.cobr?.status === 'CONCLUIDA') return { kind: 'PAID' };
  switch (input.cobr?.status) {
    case 'REJEITADA':
      return { kind: 'FAILED', reason: 'COBR_REJECTED', rejectionCode: input.cobr.rejectionCode };
    case 'CANCELADA':
      return { kind: 'FAILED', reason: 'COBR_CANCELLED' };
    case 'EXPIRADA':
      return { kind: 'FAILED', reason: 'COBR_EXPIRED' };
  }
  if (attempts.length === 0 || attempts.some((a) => a.status === 'SOLICITADA' || a.status === 'AGENDADA')) {
    return { kind: 'WAIT' };
  }
  const final = attempts.find((a) => a.status === 'REJEITADA' && rejectsWholeCobr(a.rejectionCode));
  if (final) return { kind: 'FAILED', reason: 'COBR_REJECTED', rejectionCode: final.rejectionCode };
  if (input.policy === 'NAO_PERMITE') return { kind: 'FAILED', reason: 'RETRIES_NOT_ALLOWED' };

  // Retries are the attempts after the first attempt's day: the payer PSP's second try on that day
  // is not one, and the PSP's first day is the fact when its calendar differs from ours.
  const retries = attempts.filter((a) => a.date > attempts[0].date);
  if (retries.length >= MAX_RETRIES) return { kind: 'FAILED', reason: 'RETRIES_EXHAUSTED' };

  const last = attempts[attempts.length - 1].date;
  const date = addDays(input.today > last ? input.today : last, 1);
  const withinWindow = daysBetween(input.settlementDate, date) <= RETRY_WINDOW_DAYS;
  const beforeNextCycle = input.nextSettlementDate === undefined || date < input.nextSettlementDate;
  if (!withinWindow || !beforeNextCycle) return { kind: 'FAILED', reason: 'RETRY_WINDOW_CLOSED' };
  return { kind: 'RETRY', date };
}

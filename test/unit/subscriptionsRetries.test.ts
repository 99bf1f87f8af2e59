/**
 * Retries of a cycle's cobr after its due date (core/subscriptions/retries.ts): never under
 * NAO_PERMITE; under PERMITE_3R_7D at most 3, on different future dates, within 7 calendar days
 * after the settlement date and before the next cycle's, one at a time; the codes that reject the
 * whole cobr end the cycle at once, the BCB document's other codes allow a retry.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import {
  ATTEMPT_REJECTION_CODES,
  COBR_REJECTION_CODES,
  rejectsWholeCobr,
  retryDecision,
  type Attempt,
  type RetryInput,
} from '../../core/subscriptions/retries';

const S = '2026-03-10'; // the cycle's settlement date, a Tuesday
const NEXT = '2026-04-10';
const rejected = (date: string, rejectionCode?: string): Attempt => ({ date, status: 'REJEITADA', rejectionCode });
const decide = (attempts: Attempt[], today: string, over: Partial<RetryInput> = {}) =>
  retryDecision({ policy: 'PERMITE_3R_7D', settlementDate: S, nextSettlementDate: NEXT, attempts, today, ...over });

describe('rejection codes', () => {
  // The BCB document's codes of an attempt's rejection, and the ones its description says reject the cobr.
  const doc = parse(fs.readFileSync(path.resolve(__dirname, '../../docs/standards/api-pix-2.9.0.yaml'), 'utf8'));
  const codigo =
    doc.components.schemas.CobRTentativas.properties.tentativas.items.properties.rejeicao.properties.codigo;

  it("the two lists are the document's codes, split as its description says", () => {
    expect([...COBR_REJECTION_CODES, ...ATTEMPT_REJECTION_CODES].sort()).toEqual([...codigo.enum].sort());
    const named = new Set(
      String(codigo.description)
        .match(/`[A-Z0-9]{4}`/g)!
        .map((c: string) => c.slice(1, -1)),
    );
    expect([...named].sort()).toEqual([...COBR_REJECTION_CODES].sort());
  });

  it.each([...COBR_REJECTION_CODES])('%s rejects the whole cobr: the cycle fails at once, no retry', (code) => {
    expect(rejectsWholeCobr(code)).toBe(true);
    expect(decide([rejected(S, code)], S)).toEqual({ kind: 'FAILED', reason: 'COBR_REJECTED', rejectionCode: code });
  });

  it.each([...ATTEMPT_REJECTION_CODES])('%s rejects one attempt: a retry the next day', (code) => {
    expect(rejectsWholeCobr(code)).toBe(false);
    expect(decide([rejected(S, code)], S)).toEqual({ kind: 'RETRY', date: '2026-03-11' });
  });

  it('a whole-cobr code on a retry ends the cycle too', () => {
    expect(decide([rejected(S, 'AM02'), rejected('2026-03-11', 'MSUC')], '2026-03-11')).toEqual({
      kind: 'FAILED',
      reason: 'COBR_REJECTED',
      rejectionCode: 'MSUC',
    });
  });
});

describe('the cobr as a whole', () => {
  it('CONCLUIDA: paid, whatever the attempts show', () => {
    expect(decide([], S, { cobr: { status: 'CONCLUIDA' } })).toEqual({ kind: 'PAID' });
  });

  it('REJEITADA with no attempt (the payer PSP refused to schedule it): failed, with its code', () => {
    expect(decide([], '2026-03-03', { cobr: { status: 'REJEITADA', rejectionCode: 'AM02' } })).toEqual({
      kind: 'FAILED',
      reason: 'COBR_REJECTED',
      rejectionCode: 'AM02',
    });
  });

  it('CANCELADA or EXPIRADA: failed, no retry even with retries left', () => {
    expect(decide([rejected(S)], S, { cobr: { status: 'CANCELADA' } })).toEqual({
      kind: 'FAILED',
      reason: 'COBR_CANCELLED',
    });
    expect(decide([rejected(S)], S, { cobr: { status: 'EXPIRADA' } })).toEqual({
      kind: 'FAILED',
      reason: 'COBR_EXPIRED',
    });
  });

  it('CRIADA or ATIVA: judged by its attempts', () => {
    expect(decide([], '2026-03-03', { cobr: { status: 'ATIVA' } })).toEqual({ kind: 'WAIT' });
    expect(decide([rejected(S)], S, { cobr: { status: 'ATIVA' } })).toEqual({ kind: 'RETRY', date: '2026-03-11' });
  });
});

describe('NAO_PERMITE', () => {
  it('never a retry: a rejected attempt fails the cycle', () => {
    expect(decide([rejected(S, 'AM02')], S, { policy: 'NAO_PERMITE' })).toEqual({
      kind: 'FAILED',
      reason: 'RETRIES_NOT_ALLOWED',
    });
  });

  it('a whole-cobr code is still told apart', () => {
    expect(decide([rejected(S, 'AC05')], S, { policy: 'NAO_PERMITE' })).toMatchObject({ reason: 'COBR_REJECTED' });
  });

  it('paid or pending attempts are answered as under the other policy', () => {
    expect(decide([{ date: S, status: 'PAGA' }], S, { policy: 'NAO_PERMITE' })).toEqual({ kind: 'PAID' });
    expect(decide([{ date: S, status: 'AGENDADA' }], S, { policy: 'NAO_PERMITE' })).toEqual({ kind: 'WAIT' });
  });
});

describe('PERMITE_3R_7D', () => {
  it('a paid attempt, first or a retry: the cycle is paid', () => {
    expect(decide([{ date: S, status: 'PAGA' }], S)).toEqual({ kind: 'PAID' });
    expect(decide([rejected(S), { date: '2026-03-12', status: 'PAGA' }], '2026-03-12')).toEqual({ kind: 'PAID' });
  });

  it('one at a time: no retry while an attempt is SOLICITADA or AGENDADA, nor before any attempt', () => {
    expect(decide([], '2026-03-05')).toEqual({ kind: 'WAIT' });
    expect(decide([{ date: S, status: 'AGENDADA' }], S)).toEqual({ kind: 'WAIT' });
    expect(decide([rejected(S), { date: '2026-03-11', status: 'SOLICITADA' }], S)).toEqual({ kind: 'WAIT' });
  });

  it('a future date: the day after today, even when the rejection is read days later', () => {
    expect(decide([rejected(S)], '2026-03-12')).toEqual({ kind: 'RETRY', date: '2026-03-13' });
  });

  it('each on a date of its own, after the last attempt', () => {
    expect(decide([rejected(S), rejected('2026-03-11')], '2026-03-11')).toEqual({ kind: 'RETRY', date: '2026-03-12' });
    // Today read from a clock behind the PSP's: still after the last attempt's date.
    expect(decide([rejected(S), rejected('2026-03-13')], '2026-03-11')).toEqual({ kind: 'RETRY', date: '2026-03-14' });
  });

  it('attempts in any order; an expired or cancelled attempt is a failed one', () => {
    const attempts: Attempt[] = [
      { date: '2026-03-11', status: 'EXPIRADA' },
      { date: S, status: 'CANCELADA' },
    ];
    expect(decide(attempts, '2026-03-11')).toEqual({ kind: 'RETRY', date: '2026-03-12' });
  });

  it('at most 3 retries: the third failed, the cycle has failed for good', () => {
    const three = [rejected(S), rejected('2026-03-11'), rejected('2026-03-12'), rejected('2026-03-13')];
    expect(decide(three.slice(0, 3), '2026-03-12')).toEqual({ kind: 'RETRY', date: '2026-03-13' });
    expect(decide(three, '2026-03-13')).toEqual({ kind: 'FAILED', reason: 'RETRIES_EXHAUSTED' });
  });

  it("the payer PSP's second try on the due date is not a retry", () => {
    const attempts = [rejected(S), rejected(S), rejected('2026-03-11'), rejected('2026-03-12')];
    expect(decide(attempts, '2026-03-12')).toEqual({ kind: 'RETRY', date: '2026-03-13' });
  });

  it('within 7 calendar days after the settlement date: the seventh day is the last one', () => {
    expect(decide([rejected(S)], '2026-03-16')).toEqual({ kind: 'RETRY', date: '2026-03-17' });
    expect(decide([rejected(S)], '2026-03-17')).toEqual({ kind: 'FAILED', reason: 'RETRY_WINDOW_CLOSED' });
  });

  it("before the next cycle's settlement date (a weekly recurrence whose next cycle is 3 days later)", () => {
    const weekly = { nextSettlementDate: '2026-03-13' };
    expect(decide([rejected(S)], '2026-03-11', weekly)).toEqual({ kind: 'RETRY', date: '2026-03-12' });
    expect(decide([rejected(S)], '2026-03-12', weekly)).toEqual({ kind: 'FAILED', reason: 'RETRY_WINDOW_CLOSED' });
  });

  it('the last cycle of the term: only the 7 days bound it', () => {
    expect(decide([rejected(S)], '2026-03-16', { nextSettlementDate: undefined })).toEqual({
      kind: 'RETRY',
      date: '2026-03-17',
    });
  });
});

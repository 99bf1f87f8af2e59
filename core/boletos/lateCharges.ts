/**
 * What a boleto is worth on the day it is paid: the face amount until the due date (plus the
 * grace days), then a one-off fine (multa) and simple interest (juros de mora) pro rata die.
 *
 * Rule we apply (the usual one in Brazilian billing; a bank's own terms may differ):
 *  - daysLate = paid date − due date, in calendar days;
 *  - within graceDays (carência) nothing is added; past it, fine and interest both count from
 *    the due date: fine = amount × fineBps / 10 000, interest = amount × monthlyInterestBps /
 *    10 000 × daysLate / 30; each rounded half up to the cent.
 * Not modelled: a due date on a weekend or bank holiday moving to the next business day.
 */
import { daysBetween } from './dates';

export interface LateChargeTerms {
  amountCents: number;
  dueDate: string; // 'YYYY-MM-DD'
  /** Fine after due date, in basis points of the amount (200 = 2 %). */
  fineBps?: number;
  /** Interest per month (30 days), in basis points of the amount (100 = 1 % a month). */
  monthlyInterestBps?: number;
  graceDays?: number;
}

export interface AmountDue {
  daysLate: number;
  /** Paid after the due date (even within the grace days). */
  late: boolean;
  fineCents: number;
  interestCents: number;
  expectedAmountCents: number;
}

export function amountDueOn(terms: LateChargeTerms, paidDate: string): AmountDue {
  const daysLate = Math.max(0, daysBetween(terms.dueDate, paidDate));
  const charged = daysLate > (terms.graceDays ?? 0);
  const fineCents = charged ? roundDiv(BigInt(terms.amountCents) * BigInt(terms.fineBps ?? 0), 10_000n) : 0;
  const interestCents = charged
    ? roundDiv(BigInt(terms.amountCents) * BigInt(terms.monthlyInterestBps ?? 0) * BigInt(daysLate), 300_000n)
    : 0;
  return {
    daysLate,
    late: daysLate > 0,
    fineCents,
    interestCents,
    expectedAmountCents: terms.amountCents + fineCents + interestCents,
  };
}

/** Half-up division of non-negative integers, exact (BigInt, so no float drift on big amounts). */
function roundDiv(numerator: bigint, denominator: bigint): number {
  return Number((numerator * 2n + denominator) / (denominator * 2n));
}

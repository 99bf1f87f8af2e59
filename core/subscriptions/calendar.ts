/**
 * The cycle calendar of a subscription: which day each cycle of a Pix Automático recurrence falls
 * due, from the recurrence's `calendario` (`dataInicial`, `periodicidade`, `dataFinal`) and the
 * cobr's `ajusteDiaUtil` (docs/standards/api-pix-2.9.0.yaml, schemas `Rec` and `CobRBase`).
 * Pure; dates are 'YYYY-MM-DD' strings.
 *
 * The marketplace's side: a course's price of type SUBSCRIPTION (db/marketplace/course.ts,
 * migration 0020) carries no period yet, and the interface contract leaves SUBSCRIPTION out of
 * P0 (docs/spec/interface-spec.md); so the period a price will carry is named here, in the
 * marketplace's English (`SUBSCRIPTION_INTERVALS`), with its BCB `periodicidade`. Until prices
 * carry one, a subscription is MONTHLY, the period issue 39's scenarios use.
 */
import { fromEpochDay, toEpochDay } from '../boletos/dates';
import { nextBusinessDay } from './businessDays';

export const SUBSCRIPTION_INTERVALS = ['WEEKLY', 'MONTHLY', 'QUARTERLY', 'SEMIANNUAL', 'ANNUAL'] as const;
export type SubscriptionInterval = (typeof SUBSCRIPTION_INTERVALS)[number];
export const DEFAULT_SUBSCRIPTION_INTERVAL: SubscriptionInterval = 'MONTHLY';

/** The BCB's `Rec.calendario.periodicidade`. */
export const PERIODICIDADES = ['SEMANAL', 'MENSAL', 'TRIMESTRAL', 'SEMESTRAL', 'ANUAL'] as const;
export type Periodicidade = (typeof PERIODICIDADES)[number];

const PERIODICIDADE_OF: Record<SubscriptionInterval, Periodicidade> = {
  WEEKLY: 'SEMANAL',
  MONTHLY: 'MENSAL',
  QUARTERLY: 'TRIMESTRAL',
  SEMIANNUAL: 'SEMESTRAL',
  ANNUAL: 'ANUAL',
};

export function periodicidadeOf(interval: SubscriptionInterval): Periodicidade {
  return PERIODICIDADE_OF[interval];
}

/** Months per cycle; SEMANAL is counted in days instead. */
const MONTHS: Record<Exclude<Periodicidade, 'SEMANAL'>, number> = {
  MENSAL: 1,
  TRIMESTRAL: 3,
  SEMESTRAL: 6,
  ANUAL: 12,
};

export interface RecCalendar {
  dataInicial: string;
  periodicidade: Periodicidade;
  /** The last day of the recurrence's term; absent: until cancelled. */
  dataFinal?: string;
}

export interface CycleDue {
  /** 1 for the cycle due on `dataInicial`. */
  cycle: number;
  /** The cobr's `calendario.dataDeVencimento`. */
  dueDate: string;
  /** The day it is expected to settle: `dueDate`, or the next business day with `ajusteDiaUtil`. */
  settlementDate: string;
}

/**
 * The due date of cycle `cycle` (1-based). Every date is counted from `dataInicial`, never from
 * the previous cycle, so a short month does not shift the ones after it. The month-end rule: a
 * day of the month that the target month lacks becomes that month's last day, so a subscription
 * started on 31 January is due on 28 (29 in a leap year) February, then on 31 March, 30 April,
 * 31 May; one started on 29 February is due on 28 February of the years that are not leap years.
 * SEMANAL adds 7 days per cycle. `ajusteDiaUtil` (the BCB's default, true) moves the settlement
 * date of a due date on a weekend or national holiday to the next business day, and only that
 * cycle's: the next cycle still counts from `dataInicial`.
 */
export function cycleDue(calendar: RecCalendar, cycle: number, ajusteDiaUtil = true): CycleDue {
  if (!Number.isInteger(cycle) || cycle < 1) throw new RangeError(`cycle must be an integer ≥ 1: ${cycle}`);
  const steps = cycle - 1;
  const dueDate =
    calendar.periodicidade === 'SEMANAL'
      ? fromEpochDay(toEpochDay(calendar.dataInicial) + 7 * steps)
      : addMonthsClamped(calendar.dataInicial, MONTHS[calendar.periodicidade] * steps);
  return { cycle, dueDate, settlementDate: ajusteDiaUtil ? nextBusinessDay(dueDate) : dueDate };
}

/** Whether the recurrence's term includes that cycle (no `dataFinal`: every cycle). */
export function isWithinTerm(calendar: RecCalendar, cycle: number): boolean {
  return calendar.dataFinal === undefined || cycleDue(calendar, cycle, false).dueDate <= calendar.dataFinal;
}

/** 'YYYY-MM-DD' plus whole months, the day kept or clamped to the target month's last day. */
export function addMonthsClamped(date: string, months: number): string {
  toEpochDay(date); // validates
  const [year, month, day] = date.split('-').map(Number);
  const index = year * 12 + (month - 1) + months;
  const targetYear = Math.floor(index / 12);
  const targetMonth = (index % 12) + 1;
  const lastDay = new Date(Date.UTC(targetYear, targetMonth, 0)).getUTCDate();
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${targetYear}-${pad(targetMonth)}-${pad(Math.min(day, lastDay))}`;
}

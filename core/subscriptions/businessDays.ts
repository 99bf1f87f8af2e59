/**
 * Business days of the Brazilian financial system, for the `ajusteDiaUtil` of a recurring charge
 * (a cobr due on a non-business day settles on the next business day) and for the issue window's
 * "2 business days" reading. Pure: no clock, no I/O; dates are 'YYYY-MM-DD' strings.
 *
 * The project had no holiday calendar before this one (sandbox/boletos.ts skips weekends only, and
 * core/boletos/lateCharges.ts does not move due dates), so this is it. The holidays are the
 * national ones of ANBIMA's calendar, the one the financial market settles by: the legal national
 * holidays (Lei 662/1949 as amended, Lei 6.802/1980 for 12 October, Lei 14.759/2023 for
 * 20 November from 2024 on) and the days banks do not open nationwide (Carnival Monday and
 * Tuesday, Good Friday, Corpus Christi), which move with Easter.
 *
 * Not modelled: state and municipal holidays. The BCB document says the receiver's PSP adjusts by
 * the payer's municipality (`ajusteDiaUtil`), which the gateway does not know, so a date from here
 * is the gateway's expectation; the PSP's `tentativas[].dataLiquidacao` is the fact.
 */
import { addDays, fromEpochDay, toEpochDay } from '../boletos/dates';

/** 'MM-DD' of the fixed national holidays, with the first year each applies (if not always). */
const FIXED_HOLIDAYS: readonly { monthDay: string; since?: number }[] = [
  { monthDay: '01-01' }, // Confraternização Universal
  { monthDay: '04-21' }, // Tiradentes
  { monthDay: '05-01' }, // Dia do Trabalho
  { monthDay: '09-07' }, // Independência
  { monthDay: '10-12' }, // Nossa Senhora Aparecida
  { monthDay: '11-02' }, // Finados
  { monthDay: '11-15' }, // Proclamação da República
  { monthDay: '11-20', since: 2024 }, // Dia Nacional de Zumbi e da Consciência Negra
  { monthDay: '12-25' }, // Natal
];

/** Days from Easter Sunday of the holidays that move with it. */
const EASTER_OFFSETS: readonly number[] = [
  -48, // Carnival Monday
  -47, // Carnival Tuesday
  -2, // Good Friday (Paixão de Cristo)
  60, // Corpus Christi
];

/** Easter Sunday of a Gregorian year (the anonymous Gregorian algorithm, Meeus/Jones/Butcher). */
export function easterSunday(year: number): string {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

const holidaysByYear = new Map<number, ReadonlySet<string>>();

/** The national non-business days of a year other than weekends, sorted. */
export function nationalHolidays(year: number): string[] {
  return [...holidaySet(year)].sort();
}

function holidaySet(year: number): ReadonlySet<string> {
  let set = holidaysByYear.get(year);
  if (!set) {
    const easter = easterSunday(year);
    set = new Set([
      ...FIXED_HOLIDAYS.filter((h) => h.since === undefined || year >= h.since).map((h) => `${year}-${h.monthDay}`),
      ...EASTER_OFFSETS.map((offset) => addDays(easter, offset)),
    ]);
    holidaysByYear.set(year, set);
  }
  return set;
}

export function isBusinessDay(date: string): boolean {
  // 1970-01-01 was a Thursday: epoch day 0 → weekday 4 (Sunday = 0).
  const weekday = (((toEpochDay(date) + 4) % 7) + 7) % 7;
  if (weekday === 0 || weekday === 6) return false;
  return !holidaySet(Number(date.slice(0, 4))).has(date);
}

/** The date itself when it is a business day, else the next business day (`ajusteDiaUtil`). */
export function nextBusinessDay(date: string): string {
  let day = toEpochDay(date);
  while (!isBusinessDay(fromEpochDay(day))) day += 1;
  return fromEpochDay(day);
}

/** The business day `count` (≥ 1) business days before `date`: 2 before a Monday is the Thursday. */
export function businessDaysBefore(date: string, count: number): string {
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`count must be a positive integer: ${count}`);
  let day = toEpochDay(date);
  for (let left = count; left > 0;) {
    day -= 1;
    if (isBusinessDay(fromEpochDay(day))) left -= 1;
  }
  return fromEpochDay(day);
}

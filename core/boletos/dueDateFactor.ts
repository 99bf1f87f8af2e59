/**
 * The "fator de vencimento": 4 digits of the barcode (positions 6–9) that encode the due date as
 * a day count.
 *
 * Rule (FEBRABAN "Layout – Código de Barras", and e.g. Bradesco's "Layout da Cobrança" manual,
 * which reproduces it): the factor is the number of days since the base date 1997-10-07, so
 * 2000-07-03 is 1000 and 2025-02-21 is 9999. Four digits run out there, so on 2025-02-22 the
 * factor restarts at 1000 and counts up again (2025-02-23 → 1001, …), a new cycle of 9000 days
 * each time it would pass 9999. Factor 0000 means "no due date" (pay any time).
 *
 * So date = 1997-10-07 + factor + 9000·n for a cycle n ≥ 0, and a factor alone is ambiguous
 * between cycles: banks (and we) read it as the cycle whose date is closest to a reference day,
 * normally today. Factors 0001–0999 only ever existed in the first cycle (1997–2000).
 */
import { fromEpochDay, toEpochDay } from './dates';

const BASE_DAY = toEpochDay('1997-10-07');
export const FACTOR_RESET_DATE = '2025-02-22';
const CYCLE_DAYS = 9000;
const FIRST_FACTOR_OF_A_CYCLE = 1000;
const LAST_FACTOR = 9999;

/** The 4-digit factor for a due date 'YYYY-MM-DD' (any date after 1997-10-07). */
export function dueDateFactor(date: string): string {
  const days = toEpochDay(date) - BASE_DAY;
  if (days < 1) throw new RangeError(`due date ${date} is before the factor's base date 1997-10-07`);
  // Days past the first cycle wrap into 1000..9999.
  const factor = days <= LAST_FACTOR ? days : FIRST_FACTOR_OF_A_CYCLE + ((days - FIRST_FACTOR_OF_A_CYCLE) % CYCLE_DAYS);
  return String(factor).padStart(4, '0');
}

/**
 * The due date a factor stands for, in the cycle closest to `referenceDate` ('YYYY-MM-DD',
 * normally today). Null for factor 0 (no due date). Ties (never in practice: cycles are 9000
 * days apart) go to the later cycle.
 */
export function dueDateFromFactor(factor: string | number, referenceDate: string): string | null {
  const f = typeof factor === 'number' ? factor : Number(factor);
  if (!Number.isInteger(f) || f < 0 || f > LAST_FACTOR || (typeof factor === 'string' && !/^\d{4}$/.test(factor))) {
    throw new RangeError(`not a due-date factor: ${JSON.stringify(factor)}`);
  }
  if (f === 0) return null;
  const first = BASE_DAY + f;
  if (f < FIRST_FACTOR_OF_A_CYCLE) return fromEpochDay(first);
  const ref = toEpochDay(referenceDate);
  const n = Math.max(0, Math.round((ref - first) / CYCLE_DAYS));
  return fromEpochDay(first + n * CYCLE_DAYS);
}

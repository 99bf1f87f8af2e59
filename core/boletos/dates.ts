/** Calendar dates as 'YYYY-MM-DD' strings, computed in UTC so no time zone shifts a day. */

const DAY_MS = 86_400_000;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Days since 1970-01-01 for a valid 'YYYY-MM-DD'; throws on anything else (2025-02-30 included). */
export function toEpochDay(date: string): number {
  const m = ISO_DATE.exec(date);
  if (!m) throw new RangeError(`not a YYYY-MM-DD date: ${JSON.stringify(date)}`);
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  if (fromEpochDay(ms / DAY_MS) !== date) throw new RangeError(`no such calendar date: ${date}`);
  return ms / DAY_MS;
}

export function fromEpochDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

export function isIsoDate(value: string): boolean {
  try {
    toEpochDay(value);
    return true;
  } catch {
    return false;
  }
}

export function addDays(date: string, days: number): string {
  return fromEpochDay(toEpochDay(date) + days);
}

/** b − a in days. */
export function daysBetween(a: string, b: string): number {
  return toEpochDay(b) - toEpochDay(a);
}

/** The UTC calendar date of an instant; callers that mean "today in Brazil" pass a shifted Date. */
export function isoDateOf(instant: Date): string {
  return instant.toISOString().slice(0, 10);
}

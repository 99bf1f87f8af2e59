/**
 * A period of calendar days cut where the payer rollup (dashboard_payer_months, migration 0047)
 * can serve it: the whole months inside it, read from the rollup, and the days before the first
 * whole month and after the last, read from the charges themselves. Days are 'YYYY-MM-DD'
 * (America/Sao_Paulo calendar days; the arithmetic is on the calendar only, no time zone).
 */

/** Days [from, until): `until` is the day after the last one. */
export interface DayRange {
  from: string;
  until: string;
}

export interface PeriodCut {
  /** First days of the whole months inside the period, [from, until); null when there is none. */
  months: DayRange | null;
  /** The rest of the period, at most two ranges, none empty. */
  days: DayRange[];
}

const day = (s: string): Date => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) throw new Error(`not a calendar day: ${s}`);
  return new Date(`${s}T00:00:00Z`);
};
const text = (d: Date): string => d.toISOString().slice(0, 10);
const monthStart = (d: Date): Date => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
const nextMonth = (d: Date): Date => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1));

/** The days [from, to] (both inclusive) as whole months and the days around them. */
export function cutPeriod(from: string, to: string): PeriodCut {
  const start = day(from);
  const until = new Date(day(to).getTime() + 86_400_000);
  if (start >= until) return { months: null, days: [] };
  const firstWhole = start.getUTCDate() === 1 ? start : nextMonth(start);
  const endWhole = monthStart(until);
  if (firstWhole >= endWhole) return { months: null, days: [{ from: text(start), until: text(until) }] };
  const days: DayRange[] = [];
  if (start < firstWhole) days.push({ from: text(start), until: text(firstWhole) });
  if (endWhole < until) days.push({ from: text(endWhole), until: text(until) });
  return { months: { from: text(firstWhole), until: text(endWhole) }, days };
}

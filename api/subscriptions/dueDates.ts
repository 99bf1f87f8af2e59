/** Date arithmetic on YYYY-MM-DD (Brasília calendar dates) for a subscription's first due date. */
import { isBusinessDay } from '../../core/subscriptions/businessDays';

/** Journeys 1 and 2 without firstDueDate: ten days from today. */
export const FIRST_DUE_DATE_DEFAULT_DAYS = 10;
/** The latest first due date a request may ask for. */
export const FIRST_DUE_DATE_MAX_DAYS = 365;

export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** The business day `count` (≥ 1) business days after `date`: 3 after a Friday is the Wednesday. */
export function businessDaysAfter(date: string, count: number): string {
  let day = date;
  for (let left = count; left > 0;) {
    day = addDays(day, 1);
    if (isBusinessDay(day)) left -= 1;
  }
  return day;
}

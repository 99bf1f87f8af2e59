/** Date arithmetic on YYYY-MM-DD (Brasília calendar dates) for a subscription's first due date. */
import { isBusinessDay } from '../../core/subscriptions/businessDays';
import { errors } from '../errors/apiError';

/** Journeys 1 and 2 without firstDueDate: ten days from today. */
export const FIRST_DUE_DATE_DEFAULT_DAYS = 10;
/** The latest first due date a request may ask for. */
export const FIRST_DUE_DATE_MAX_DAYS = 365;
/** Journeys 1 and 2: the PSP needs the days to schedule the first cobr. */
export const MIN_FIRST_DUE_BUSINESS_DAYS = 3;

const invalid = (message: string) =>
  errors.validation('request body is invalid', { fields: [{ field: 'firstDueDate', message }] });

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

/**
 * Cycle 1's due date: journey 3 today (the cob of the QR pays it now); journeys 1 and 2 the one
 * asked for, at least 3 business days after today (the PSP needs the days to schedule the first
 * cobr) and at most a year ahead, default today + 10 days.
 */
export function firstDueDateOf(body: { journey: string; firstDueDate?: string }, today: string): string {
  if (body.journey === 'JOURNEY_3') {
    if (body.firstDueDate !== undefined && body.firstDueDate !== today)
      throw invalid(`JOURNEY_3's first cycle is due today (${today}): omit it`);
    return today;
  }
  const date = body.firstDueDate ?? addDays(today, FIRST_DUE_DATE_DEFAULT_DAYS);
  const earliest = businessDaysAfter(today, MIN_FIRST_DUE_BUSINESS_DAYS);
  if (date < earliest)
    throw invalid(`must be at least ${MIN_FIRST_DUE_BUSINESS_DAYS} business days from today: ${earliest} or later`);
  const latest = addDays(today, FIRST_DUE_DATE_MAX_DAYS);
  if (date > latest) throw invalid(`must be at most a year from today: ${latest} or earlier`);
  return date;
}

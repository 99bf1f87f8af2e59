/**
 * When each cycle's cobr is sent to the PSP. The rules put it between 10 and 2 days before the
 * settlement date (../shared/spec/pix-automatico.md): EBANX and the press count calendar days,
 * Celcoin writes business days. The two readings disagree only at the late edge (2 business days
 * before a Monday is the Thursday; 2 calendar days is the Saturday) and at the early edge
 * (10 business days reach further back than 10 calendar days), so the gateway follows both at
 * once, which any PSP accepts:
 * - the window opens 10 calendar days before the settlement date (the later of the two openings);
 * - it closes at the end of the day 2 business days before it (the earlier of the two closings);
 * - the workflow issues 9 calendar days before, at 09:00: one day inside the opening, so neither
 *   a clock difference nor a municipal holiday of the payer (which moves the PSP's settlement date a
 *   day later than the gateway's national calendar says) puts it before the opening; as early as
 *   that, so the payer's PSP has days to schedule it (it has 2 hours, and refuses an amount above
 *   the payer's maximum) and a failed issue leaves a week of retries before the window closes; at
 *   09:00, so a failure happens in office hours.
 * Brasília has had no daylight saving time since 2019 (Decreto 9.772/2019): its offset is −03:00.
 */
import { addDays } from '../boletos/dates';
import { businessDaysBefore } from './businessDays';

export const ISSUE_WINDOW_OPENS_DAYS_BEFORE = 10;
export const ISSUE_DAYS_BEFORE = 9;
export const ISSUE_WINDOW_CLOSES_BUSINESS_DAYS_BEFORE = 2;
export const ISSUE_TIME_BRASILIA = '09:00:00';
const BRASILIA = '-03:00';

/** The calendar date in Brasília of an instant (epoch ms): the `today` of the retry rules. */
export function brasiliaDate(instantMs: number): string {
  return new Date(instantMs - 3 * 3_600_000).toISOString().slice(0, 10);
}

export interface IssueWindow {
  /** The first instant the cobr may be sent (ISO 8601, Brasília offset). */
  opensAt: string;
  /** When the workflow sends it. */
  issueAt: string;
  /** The last instant it still may be sent. */
  latestAt: string;
}

/** The window of the cycle that settles on `settlementDate` (CycleDue.settlementDate). */
export function issueWindow(settlementDate: string): IssueWindow {
  return {
    opensAt: `${addDays(settlementDate, -ISSUE_WINDOW_OPENS_DAYS_BEFORE)}T00:00:00.000${BRASILIA}`,
    issueAt: `${addDays(settlementDate, -ISSUE_DAYS_BEFORE)}T${ISSUE_TIME_BRASILIA}.000${BRASILIA}`,
    latestAt: `${businessDaysBefore(settlementDate, ISSUE_WINDOW_CLOSES_BUSINESS_DAYS_BEFORE)}T23:59:59.999${BRASILIA}`,
  };
}

export type IssueDecision =
  | { kind: 'WAIT'; untilMs: number }
  | { kind: 'ISSUE_NOW' }
  /** The window has closed: this cycle cannot be charged (the PSP would refuse the cobr). */
  | { kind: 'TOO_LATE' };

/**
 * What to do at `nowMs`: wait for the planned instant, issue now (the planned instant has passed,
 * e.g. a recurrence approved a few days before its first due date, or an issue being retried),
 * or give the cycle up.
 */
export function issueDecision(window: IssueWindow, nowMs: number): IssueDecision {
  if (nowMs > Date.parse(window.latestAt)) return { kind: 'TOO_LATE' };
  const issueMs = Date.parse(window.issueAt);
  return nowMs < issueMs ? { kind: 'WAIT', untilMs: issueMs } : { kind: 'ISSUE_NOW' };
}

/**
 * When a cycle's cobr is sent (core/subscriptions/issueWindow.ts): the window opens 10 calendar
 * days before the settlement date and closes at the end of the day 2 business days before it, so
 * both readings of the rules (calendar days, EBANX; business days, Celcoin) hold; the workflow
 * issues 9 days before, at 09:00 in Brasília.
 */
import { addDays, daysBetween, fromEpochDay, toEpochDay } from '../../core/boletos/dates';
import { businessDaysBefore } from '../../core/subscriptions/businessDays';
import { brasiliaDate, issueDecision, issueWindow } from '../../core/subscriptions/issueWindow';

describe('the window', () => {
  it('a Wednesday settlement: both readings close on the Monday', () => {
    expect(issueWindow('2026-03-11')).toEqual({
      opensAt: '2026-03-01T00:00:00.000-03:00',
      issueAt: '2026-03-02T09:00:00.000-03:00',
      latestAt: '2026-03-09T23:59:59.999-03:00',
    });
  });

  it('a Tuesday settlement: closes on the Friday (2 business days), not on the Sunday (2 calendar days)', () => {
    expect(issueWindow('2026-03-10').latestAt).toBe('2026-03-06T23:59:59.999-03:00');
  });

  it('a settlement after Easter: the closing skips Good Friday and the weekend', () => {
    expect(issueWindow('2026-04-06').latestAt).toBe('2026-04-01T23:59:59.999-03:00');
  });

  it('the instants are Brasília time, UTC−3 all year (no daylight saving time since 2019)', () => {
    const w = issueWindow('2026-12-10');
    expect(new Date(w.issueAt).toISOString()).toBe('2026-12-01T12:00:00.000Z');
    expect(new Date(w.opensAt).toISOString()).toBe('2026-11-30T03:00:00.000Z');
  });

  it('every settlement day of 2026 and 2027: opens 10 days before, issue inside, closes by both readings', () => {
    for (let day = toEpochDay('2026-01-01'); day <= toEpochDay('2027-12-31'); day++) {
      const settlement = fromEpochDay(day);
      const w = issueWindow(settlement);
      const [opens, issue, latest] = [w.opensAt, w.issueAt, w.latestAt].map((i) => i.slice(0, 10));
      expect(daysBetween(opens, settlement)).toBe(10);
      expect(opens < issue && issue <= latest).toBe(true);
      expect(latest).toBe(businessDaysBefore(settlement, 2));
      expect(latest <= addDays(settlement, -2)).toBe(true);
    }
  });
});

it("today in Brasília: the UTC date until 03:00 UTC is still yesterday's", () => {
  expect(brasiliaDate(Date.parse('2026-03-11T02:59:59.999Z'))).toBe('2026-03-10');
  expect(brasiliaDate(Date.parse('2026-03-11T03:00:00Z'))).toBe('2026-03-11');
});

describe('what the workflow does at a given moment', () => {
  const w = issueWindow('2026-03-11');
  const issueMs = Date.parse(w.issueAt);
  const latestMs = Date.parse(w.latestAt);

  it('before the planned instant: wait for it', () => {
    expect(issueDecision(w, Date.parse('2026-02-01T00:00:00Z'))).toEqual({ kind: 'WAIT', untilMs: issueMs });
    expect(issueDecision(w, issueMs - 1)).toEqual({ kind: 'WAIT', untilMs: issueMs });
  });

  it('from the planned instant to the last one, both included: issue now', () => {
    expect(issueDecision(w, issueMs)).toEqual({ kind: 'ISSUE_NOW' });
    expect(issueDecision(w, latestMs)).toEqual({ kind: 'ISSUE_NOW' });
  });

  it('after the last instant: too late for this cycle', () => {
    expect(issueDecision(w, latestMs + 1)).toEqual({ kind: 'TOO_LATE' });
  });
});

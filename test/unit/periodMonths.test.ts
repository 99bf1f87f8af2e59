/** A period cut into the payer rollup's whole months and the days around them (db/dashboard/periodMonths.ts). */
import { cutPeriod } from '../../db/dashboard/periodMonths';

describe('cutPeriod', () => {
  it('a year ending mid-month: the first partial month and the last as days, the months between whole', () => {
    expect(cutPeriod('2025-12-03', '2026-12-02')).toEqual({
      months: { from: '2026-01-01', until: '2026-12-01' },
      days: [
        { from: '2025-12-03', until: '2026-01-01' },
        { from: '2026-12-01', until: '2026-12-03' },
      ],
    });
  });

  it('whole months only when the period starts on a 1st and ends on a month end (leap February)', () => {
    expect(cutPeriod('2024-01-01', '2024-02-29')).toEqual({
      months: { from: '2024-01-01', until: '2024-03-01' },
      days: [],
    });
    expect(cutPeriod('2025-12-01', '2025-12-31')).toEqual({
      months: { from: '2025-12-01', until: '2026-01-01' },
      days: [],
    });
  });

  it('a partial end only', () => {
    expect(cutPeriod('2026-01-01', '2026-02-10')).toEqual({
      months: { from: '2026-01-01', until: '2026-02-01' },
      days: [{ from: '2026-02-01', until: '2026-02-11' }],
    });
  });

  it('no whole month inside: all days, in one range', () => {
    expect(cutPeriod('2026-01-15', '2026-02-10')).toEqual({
      months: null,
      days: [{ from: '2026-01-15', until: '2026-02-11' }],
    });
    expect(cutPeriod('2026-03-05', '2026-03-05')).toEqual({
      months: null,
      days: [{ from: '2026-03-05', until: '2026-03-06' }],
    });
    expect(cutPeriod('2026-01-02', '2026-01-31')).toEqual({
      months: null,
      days: [{ from: '2026-01-02', until: '2026-02-01' }],
    });
  });

  it('an empty period (from after to) reads nothing; a malformed day is refused', () => {
    expect(cutPeriod('2026-03-06', '2026-03-05')).toEqual({ months: null, days: [] });
    expect(() => cutPeriod('2026-3-5', '2026-03-05')).toThrow(/calendar day/);
  });
});

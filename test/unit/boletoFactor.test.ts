import { dueDateFactor, dueDateFromFactor } from '../../core/boletos';

describe('due-date factor (fator de vencimento) with the 2025-02-22 reset', () => {
  it('matches the published first-cycle table (base date 1997-10-07)', () => {
    // FEBRABAN's correlation table, as banks' layout manuals reproduce it.
    expect(dueDateFactor('2000-07-03')).toBe('1000');
    expect(dueDateFactor('2000-07-05')).toBe('1002');
    expect(dueDateFactor('2002-05-01')).toBe('1667');
    expect(dueDateFactor('2010-11-17')).toBe('4789');
    expect(dueDateFactor('2018-07-15')).toBe('7586');
    expect(dueDateFactor('1997-10-08')).toBe('0001');
  });

  it('reaches 9999 on 2025-02-21 and restarts at 1000 on 2025-02-22', () => {
    expect(dueDateFactor('2025-02-20')).toBe('9998');
    expect(dueDateFactor('2025-02-21')).toBe('9999');
    expect(dueDateFactor('2025-02-22')).toBe('1000');
    expect(dueDateFactor('2025-02-23')).toBe('1001');
    expect(dueDateFactor('2025-12-31')).toBe(String(1000 + 312));
    // The new cycle also lasts 9000 days: 2049-10-13 is 9999 again, then 1000.
    expect(dueDateFactor('2049-10-13')).toBe('9999');
    expect(dueDateFactor('2049-10-14')).toBe('1000');
  });

  it('refuses dates before the base date and non-dates', () => {
    expect(() => dueDateFactor('1997-10-07')).toThrow(RangeError);
    expect(() => dueDateFactor('2025-02-30')).toThrow(RangeError);
    expect(() => dueDateFactor('22/02/2025')).toThrow(RangeError);
  });

  it('reads a factor in the cycle closest to the reference date', () => {
    expect(dueDateFromFactor('1000', '2000-06-01')).toBe('2000-07-03');
    expect(dueDateFromFactor('1000', '2025-02-01')).toBe('2025-02-22');
    expect(dueDateFromFactor('1001', '2026-06-01')).toBe('2025-02-23');
    expect(dueDateFromFactor('9999', '2025-02-22')).toBe('2025-02-21');
    expect(dueDateFromFactor('9999', '2030-01-01')).toBe('2025-02-21');
    expect(dueDateFromFactor('4789', '2012-01-01')).toBe('2010-11-17');
    expect(dueDateFromFactor('4789', '2036-01-01')).toBe('2035-07-09');
    // First-cycle-only factors ignore the reference; 0000 means no due date.
    expect(dueDateFromFactor('0500', '2030-01-01')).toBe(dueDateFromFactor(500, '1998-01-01'));
    expect(dueDateFromFactor('0000', '2030-01-01')).toBeNull();
    expect(() => dueDateFromFactor('10000', '2030-01-01')).toThrow(RangeError);
    expect(() => dueDateFromFactor('12a4', '2030-01-01')).toThrow(RangeError);
  });

  it('round-trips every day from 2000 to 2060 with a reference within ±4 years', () => {
    const start = Date.UTC(2000, 6, 3);
    for (let d = 0; d < 60 * 365; d += 3) {
      const date = new Date(start + d * 86_400_000).toISOString().slice(0, 10);
      const ref = new Date(start + (d + ((d * 7919) % 2900) - 1450) * 86_400_000).toISOString().slice(0, 10);
      expect(dueDateFromFactor(dueDateFactor(date), ref)).toBe(date);
    }
  });
});

/**
 * The cycle calendar of a Pix Automático subscription (core/subscriptions/calendar.ts) and the
 * business days it adjusts by (core/subscriptions/businessDays.ts): the marketplace's periods as
 * the BCB's `periodicidade`, due dates counted from `dataInicial` with month ends clamped (leap
 * years included), and `ajusteDiaUtil` across weekends and national holidays.
 */
import {
  businessDaysBefore,
  easterSunday,
  isBusinessDay,
  nationalHolidays,
  nextBusinessDay,
} from '../../core/subscriptions/businessDays';
import {
  addMonthsClamped,
  cycleDue,
  DEFAULT_SUBSCRIPTION_INTERVAL,
  isWithinTerm,
  periodicidadeOf,
  SUBSCRIPTION_INTERVALS,
  type Periodicidade,
} from '../../core/subscriptions/calendar';

const dues = (dataInicial: string, periodicidade: Periodicidade, cycles: number, ajusteDiaUtil = true) =>
  Array.from({ length: cycles }, (_, i) => cycleDue({ dataInicial, periodicidade }, i + 1, ajusteDiaUtil));

describe('periods', () => {
  it("maps every marketplace period to the BCB's periodicidade; MONTHLY until prices carry one", () => {
    expect(SUBSCRIPTION_INTERVALS.map(periodicidadeOf)).toEqual([
      'SEMANAL',
      'MENSAL',
      'TRIMESTRAL',
      'SEMESTRAL',
      'ANUAL',
    ]);
    expect(periodicidadeOf(DEFAULT_SUBSCRIPTION_INTERVAL)).toBe('MENSAL');
  });
});

describe('business days', () => {
  it.each([
    [2000, '2000-04-23'],
    [2019, '2019-04-21'],
    [2024, '2024-03-31'],
    [2025, '2025-04-20'],
    [2026, '2026-04-05'],
    [2027, '2027-03-28'],
    [2028, '2028-04-16'],
  ])('Easter %i is on %s', (year, date) => {
    expect(easterSunday(year)).toBe(date);
  });

  it('2026: the fixed national holidays and Carnival, Good Friday and Corpus Christi', () => {
    expect(nationalHolidays(2026)).toEqual([
      '2026-01-01',
      '2026-02-16',
      '2026-02-17',
      '2026-04-03',
      '2026-04-21',
      '2026-05-01',
      '2026-06-04',
      '2026-09-07',
      '2026-10-12',
      '2026-11-02',
      '2026-11-15',
      '2026-11-20',
      '2026-12-25',
    ]);
  });

  it('20 November is a national holiday from 2024 on (Lei 14.759/2023), not before', () => {
    expect(nationalHolidays(2023)).not.toContain('2023-11-20');
    expect(isBusinessDay('2023-11-20')).toBe(true);
    expect(isBusinessDay('2024-11-20')).toBe(false);
  });

  it('weekends and holidays are not business days; an ordinary weekday and Ash Wednesday are', () => {
    expect(isBusinessDay('2026-03-07')).toBe(false); // Saturday
    expect(isBusinessDay('2026-03-08')).toBe(false); // Sunday
    expect(isBusinessDay('2026-04-21')).toBe(false); // Tiradentes, a Tuesday
    expect(isBusinessDay('2026-03-10')).toBe(true);
    expect(isBusinessDay('2026-02-18')).toBe(true);
  });

  it.each([
    ['2026-03-10', '2026-03-10', 'a business day stays'],
    ['2026-03-07', '2026-03-09', 'Saturday → Monday'],
    ['2026-04-03', '2026-04-06', 'Good Friday and the weekend → Monday'],
    ['2026-02-14', '2026-02-18', 'the Carnival weekend, Monday and Tuesday → Ash Wednesday'],
    ['2026-04-21', '2026-04-22', 'Tiradentes on a Tuesday → Wednesday'],
    ['2026-11-20', '2026-11-23', 'Consciência Negra on a Friday → Monday'],
    ['2026-12-25', '2026-12-28', 'Christmas on a Friday → Monday'],
    ['2027-01-01', '2027-01-04', 'New Year on a Friday → Monday, across the year'],
  ])('next business day of %s is %s (%s)', (date, next) => {
    expect(nextBusinessDay(date)).toBe(next);
  });

  it.each([
    ['2026-03-11', '2026-03-09', 'Wednesday → Monday'],
    ['2026-03-09', '2026-03-05', 'Monday → Thursday, over the weekend'],
    ['2026-04-06', '2026-04-01', 'the Monday after Easter → Wednesday, over Good Friday'],
    ['2026-02-18', '2026-02-12', 'Ash Wednesday → Thursday, over Carnival'],
  ])('2 business days before %s is %s (%s)', (date, before) => {
    expect(businessDaysBefore(date, 2)).toBe(before);
  });

  it('refuses a count that is not a positive integer, and a date that does not exist', () => {
    expect(() => businessDaysBefore('2026-03-10', 0)).toThrow(RangeError);
    expect(() => nextBusinessDay('2026-02-30')).toThrow(RangeError);
  });
});

describe('due dates', () => {
  it('a monthly subscription started on the 31st: the last day of shorter months, the 31st again after them', () => {
    expect(dues('2026-01-31', 'MENSAL', 6, false).map((d) => d.dueDate)).toEqual([
      '2026-01-31',
      '2026-02-28',
      '2026-03-31',
      '2026-04-30',
      '2026-05-31',
      '2026-06-30',
    ]);
  });

  it('…and with ajusteDiaUtil a due date on a weekend settles on Monday, that cycle only', () => {
    expect(dues('2026-01-31', 'MENSAL', 5).map((d) => [d.dueDate, d.settlementDate])).toEqual([
      ['2026-01-31', '2026-02-02'],
      ['2026-02-28', '2026-03-02'],
      ['2026-03-31', '2026-03-31'],
      ['2026-04-30', '2026-04-30'],
      ['2026-05-31', '2026-06-01'],
    ]);
  });

  it('leap years: 29 February in a leap year, 28 in the others', () => {
    expect(cycleDue({ dataInicial: '2028-01-31', periodicidade: 'MENSAL' }, 2, false).dueDate).toBe('2028-02-29');
    expect(cycleDue({ dataInicial: '2026-01-29', periodicidade: 'MENSAL' }, 2, false).dueDate).toBe('2026-02-28');
    expect(dues('2024-02-29', 'ANUAL', 5, false).map((d) => d.dueDate)).toEqual([
      '2024-02-29',
      '2025-02-28',
      '2026-02-28',
      '2027-02-28',
      '2028-02-29',
    ]);
  });

  it('quarterly and semiannual periods clamp the same way, across years', () => {
    expect(dues('2026-11-30', 'TRIMESTRAL', 3, false).map((d) => d.dueDate)).toEqual([
      '2026-11-30',
      '2027-02-28',
      '2027-05-30',
    ]);
    expect(dues('2026-08-31', 'SEMESTRAL', 3, false).map((d) => d.dueDate)).toEqual([
      '2026-08-31',
      '2027-02-28',
      '2027-08-31',
    ]);
  });

  it('weekly: 7 days apart, over Christmas and New Year, the holidays adjusted', () => {
    expect(dues('2026-12-18', 'SEMANAL', 3).map((d) => [d.dueDate, d.settlementDate])).toEqual([
      ['2026-12-18', '2026-12-18'],
      ['2026-12-25', '2026-12-28'],
      ['2027-01-01', '2027-01-04'],
    ]);
  });

  it('a year of monthly cycles: the thirteenth is due a year after the first', () => {
    const year = dues('2026-01-15', 'MENSAL', 13, false);
    expect(year.map((d) => d.cycle)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
    expect(year[12].dueDate).toBe('2027-01-15');
  });

  it('the term: cycles due after dataFinal are outside it; no dataFinal, none is', () => {
    const calendar = { dataInicial: '2026-01-31', periodicidade: 'MENSAL' as const, dataFinal: '2026-04-30' };
    expect([1, 2, 3, 4, 5].map((c) => isWithinTerm(calendar, c))).toEqual([true, true, true, true, false]);
    expect(isWithinTerm({ dataInicial: '2026-01-31', periodicidade: 'MENSAL' }, 500)).toBe(true);
  });

  it('refuses a cycle that is not an integer ≥ 1 and a date that does not exist', () => {
    const calendar = { dataInicial: '2026-01-31', periodicidade: 'MENSAL' as const };
    expect(() => cycleDue(calendar, 0)).toThrow(RangeError);
    expect(() => cycleDue(calendar, 1.5)).toThrow(RangeError);
    expect(() => cycleDue({ dataInicial: '2026-02-31', periodicidade: 'MENSAL' }, 2)).toThrow(RangeError);
    expect(() => addMonthsClamped('31/01/2026', 1)).toThrow(RangeError);
  });
});

/** The first due date a purchase may ask for (api/subscriptions/dueDates.ts): its journey's bounds, in Brasília dates. */
import { addDays, businessDaysAfter, firstDueDateOf } from '../../api/subscriptions/dueDates';
import { ApiError } from '../../api/errors/apiError';

function refusal(fn: () => unknown): { code: string; field: string; message: string } {
  try {
    fn();
  } catch (err) {
    const e = err as ApiError;
    const [field] = (e.details as { fields: { field: string; message: string }[] }).fields;
    return { code: e.code, field: field.field, message: field.message };
  }
  throw new Error('not refused');
}

describe('businessDaysAfter', () => {
  it('skips weekends and national holidays', () => {
    expect(businessDaysAfter('2026-12-04', 3)).toBe('2026-12-09'); // Friday → Wednesday
    expect(businessDaysAfter('2026-12-23', 3)).toBe('2026-12-29'); // over Christmas
    expect(businessDaysAfter('2027-02-05', 1)).toBe('2027-02-10'); // Friday before Carnival (8–9 Feb) → Ash Wednesday
  });

  it('addDays crosses months and years', () => {
    expect(addDays('2026-12-30', 3)).toBe('2027-01-02');
    expect(addDays('2028-02-28', 1)).toBe('2028-02-29');
  });
});

describe('firstDueDateOf', () => {
  const today = '2026-12-02'; // a Wednesday

  it('journey 3: today, and only today', () => {
    expect(firstDueDateOf({ journey: 'JOURNEY_3' }, today)).toBe(today);
    expect(firstDueDateOf({ journey: 'JOURNEY_3', firstDueDate: today }, today)).toBe(today);
    expect(refusal(() => firstDueDateOf({ journey: 'JOURNEY_3', firstDueDate: '2026-12-03' }, today))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: 'firstDueDate',
      message: expect.stringMatching(/due today/),
    });
  });

  it('journeys 1 and 2: default today + 10 days; from the third business day to a year ahead', () => {
    expect(firstDueDateOf({ journey: 'JOURNEY_2' }, today)).toBe('2026-12-12');
    expect(firstDueDateOf({ journey: 'JOURNEY_1', firstDueDate: '2026-12-07' }, today)).toBe('2026-12-07');
    expect(refusal(() => firstDueDateOf({ journey: 'JOURNEY_1', firstDueDate: '2026-12-04' }, today)).message).toMatch(
      /2026-12-07 or later/,
    );
    expect(firstDueDateOf({ journey: 'JOURNEY_2', firstDueDate: '2027-12-02' }, today)).toBe('2027-12-02');
    expect(refusal(() => firstDueDateOf({ journey: 'JOURNEY_2', firstDueDate: '2027-12-03' }, today)).message).toMatch(
      /at most a year/,
    );
  });
});

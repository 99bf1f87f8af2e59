import { amountDueOn } from '../../core/boletos';

const terms = { amountCents: 100_000, dueDate: '2025-02-21', fineBps: 200, monthlyInterestBps: 100, graceDays: 2 };

describe('amount due on the payment day (multa + juros)', () => {
  it('is the face amount up to the due date', () => {
    expect(amountDueOn(terms, '2025-02-10')).toEqual({
      daysLate: 0,
      late: false,
      fineCents: 0,
      interestCents: 0,
      expectedAmountCents: 100_000,
    });
    expect(amountDueOn(terms, '2025-02-21').expectedAmountCents).toBe(100_000);
  });

  it('adds nothing within the grace days, but flags the payment late', () => {
    expect(amountDueOn(terms, '2025-02-23')).toEqual({
      daysLate: 2,
      late: true,
      fineCents: 0,
      interestCents: 0,
      expectedAmountCents: 100_000,
    });
  });

  it('past the grace days: 2 % fine + 1 %/month pro rata from the due date, across the factor reset', () => {
    // 3 days late: fine 2,000; interest 100,000 × 1 % × 3/30 = 100.
    expect(amountDueOn(terms, '2025-02-24')).toEqual({
      daysLate: 3,
      late: true,
      fineCents: 2_000,
      interestCents: 100,
      expectedAmountCents: 102_100,
    });
    // 45 days: interest 1,500.
    expect(amountDueOn(terms, '2025-04-07').interestCents).toBe(1_500);
  });

  it('rounds half up to the cent, exactly on big amounts', () => {
    expect(
      amountDueOn({ amountCents: 1_001, dueDate: '2025-01-01', monthlyInterestBps: 100 }, '2025-01-16').interestCents,
    ).toBe(5); // 5.005
    expect(
      amountDueOn(
        { amountCents: 9_999_999_999, dueDate: '2025-01-01', fineBps: 200, monthlyInterestBps: 1_000 },
        '2026-01-01',
      ),
    ).toMatchObject({
      fineCents: 200_000_000,
      interestCents: 12_166_666_665, // 9,999,999,999 × 10 % × 365 / 30 = 12,166,666,665.45
    });
  });
});

/**
 * What a cycle is credited on (core/subscriptions/paidRecord.ts): the PSP's own pix record of the
 * cobr, its endToEndId, amount and time. A cobr the PSP calls paid without that record is not yet
 * confirmed (the cycle stays open and is read again), never credited with a time or an amount
 * the gateway made up.
 */
import type { CycleAttempt, ProviderCycleCharge } from '../../core/pixAutomatico/types';
import { paidRecord } from '../../core/subscriptions/paidRecord';

const attempt = (over: Partial<CycleAttempt>): CycleAttempt => ({
  settlementDate: '2027-03-10',
  kind: 'SCHEDULED',
  status: 'SCHEDULED',
  endToEndId: null,
  rejectionCode: null,
  ...over,
});
const cobr = (over: Partial<ProviderCycleCharge>): ProviderCycleCharge => ({
  txid: 'c'.repeat(32),
  idRec: 'RR1234567820270101abcdefghijk',
  status: 'ACTIVE',
  dueDate: '2027-03-10',
  amountCents: 4_990,
  retryPolicy: 'THREE_RETRIES_IN_7_DAYS',
  attempts: [],
  rejectionCode: null,
  cancellation: null,
  payments: [],
  ...over,
});
const E2E = 'E12345678202703101200abcdefghijk';
const OTHER = 'E12345678202703091200abcdefghijk';

describe('paidRecord', () => {
  it('is the pix record of the attempt paid: its endToEndId, amount and time', () => {
    const record = paidRecord(
      cobr({
        status: 'PAID',
        attempts: [attempt({ status: 'REJECTED', endToEndId: OTHER }), attempt({ status: 'PAID', endToEndId: E2E })],
        payments: [
          { endToEndId: OTHER, amountCents: 1, paidAt: '2027-03-09T12:00:00-03:00' },
          { endToEndId: E2E, amountCents: 4_990, paidAt: '2027-03-10T07:31:02-03:00' },
        ],
      }),
    );
    expect(record).toEqual({ endToEndId: E2E, amountCents: 4_990, paidAt: '2027-03-10T07:31:02-03:00' });
  });

  it('is the cobr’s pix record when CONCLUIDA shows no paid attempt', () => {
    const record = paidRecord(
      cobr({
        status: 'PAID',
        payments: [{ endToEndId: E2E, amountCents: 4_990, paidAt: '2027-03-10T07:31:02-03:00' }],
      }),
    );
    expect(record).toEqual({ endToEndId: E2E, amountCents: 4_990, paidAt: '2027-03-10T07:31:02-03:00' });
  });

  it('is none while the cobr is not paid', () => {
    expect(paidRecord(cobr({ attempts: [attempt({ status: 'SCHEDULED' })] }))).toBeNull();
  });

  it('is none when the PSP says paid but shows no pix record: no made-up time or amount', () => {
    expect(paidRecord(cobr({ status: 'PAID', attempts: [attempt({ status: 'PAID', endToEndId: E2E })] }))).toBeNull();
    expect(paidRecord(cobr({ status: 'PAID' }))).toBeNull();
  });

  it('is none when the paid attempt’s pix is not among the records (another payment’s record is not this one’s)', () => {
    expect(
      paidRecord(
        cobr({
          status: 'PAID',
          attempts: [attempt({ status: 'PAID', endToEndId: E2E })],
          payments: [{ endToEndId: OTHER, amountCents: 4_990, paidAt: '2027-03-09T12:00:00-03:00' }],
        }),
      ),
    ).toBeNull();
  });
});

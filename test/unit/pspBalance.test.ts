/** A connected merchant's balance from its PSP saldo reading, and the payout bound (core/connections/pspBalance.ts). */
import { merchantBalance, pspCanFund, type SaldoReading } from '../../core/connections/pspBalance';

const readAt = new Date('2026-12-01T12:00:00.000Z');
const reading = (saldoCents: number, mirrorCents: number, reservedCents = 0): SaldoReading => ({
  connectionId: '00000000-0000-4000-8000-000000000001',
  saldoCents,
  mirrorCents,
  reservedCents,
  readAt,
});

describe('merchantBalance', () => {
  it('without a reading (platform model, or not read yet): the ledger’s figures, said to be the ledger’s', () => {
    expect(merchantBalance({ availableCents: 1_000, reservedCents: 200, blockedCents: 50 }, null)).toEqual({
      availableCents: 1_000,
      reservedCents: 200,
      blockedCents: 50,
      source: 'ledger',
      psp: null,
    });
  });

  it('a reading with nothing moved since: available = saldo − reserved − blocked, the difference shown', () => {
    // The PSP holds R$ 123,45 the ledger never saw: mirror 1 250, saldo 13 595.
    const ledger = { availableCents: 1_000, reservedCents: 200, blockedCents: 50 };
    expect(merchantBalance(ledger, reading(13_595, 1_250, 200))).toEqual({
      availableCents: 13_595 - 200 - 50,
      reservedCents: 200,
      blockedCents: 50,
      source: 'psp',
      psp: {
        connectionId: '00000000-0000-4000-8000-000000000001',
        saldoCents: 13_595,
        readAt: '2026-12-01T12:00:00.000Z',
        mirrorCents: 1_250,
        differenceCents: 12_345,
      },
    });
  });

  it('the saldo is carried forward by what the ledger recorded since the reading', () => {
    // Read at saldo = mirror = 5 000; then a payout of 3 000 was sent and settled: the ledger says 2 000.
    const after = merchantBalance({ availableCents: 2_000, reservedCents: 0, blockedCents: 0 }, reading(5_000, 5_000));
    expect(after.availableCents).toBe(2_000);
    expect(after.psp).toMatchObject({ saldoCents: 5_000, differenceCents: 0 });
  });

  it('a saldo below our holds shows 0 available, never a negative one', () => {
    const ledger = { availableCents: 100, reservedCents: 0, blockedCents: 900 };
    expect(merchantBalance(ledger, reading(500, 1_000)).availableCents).toBe(0);
  });
});

describe('pspCanFund', () => {
  it('the saldo at or above the mirror: bounded by the ledger’s available only', () => {
    expect(pspCanFund(1_000, reading(5_000, 1_000), 1_000)).toBe(true);
    expect(pspCanFund(1_000, reading(1_000, 1_000), 1_000)).toBe(true);
  });

  it('a shortfall at the PSP (a tariff the ledger never saw) lowers what may be reserved', () => {
    // Mirror 1 000, saldo 970: only 970 may go out.
    expect(pspCanFund(1_000, reading(970, 1_000), 970)).toBe(true);
    expect(pspCanFund(1_000, reading(970, 1_000), 971)).toBe(false);
  });

  it('a shortfall that money in flight at the reading explains (sends debited, not settled yet) is not held against it', () => {
    // 400 reserved then, 300 of it already debited by the PSP: saldo 300 below the mirror.
    expect(pspCanFund(600, reading(700, 1_000, 400), 600)).toBe(true);
    // Beyond the reserved part it is a real shortfall: 500 below with 400 reserved leaves 100 short.
    expect(pspCanFund(600, reading(500, 1_000, 400), 500)).toBe(true);
    expect(pspCanFund(600, reading(500, 1_000, 400), 501)).toBe(false);
  });
});

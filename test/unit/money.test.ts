import { computeFee } from '../../core/money';
import { allocateSplits } from '../../core/splits';
import { chargePaidEntry, assertBalanced, move, movements } from '../../core/ledger/postings';
import { accounts, describeAccount } from '../../core/ledger/accounts';

describe('computeFee', () => {
  it('applies basis points rounded half up plus the fixed part', () => {
    expect(computeFee(12_345, { bps: 100, fixedCents: 0 })).toBe(123);
    expect(computeFee(150, { bps: 100, fixedCents: 0 })).toBe(2); // 1.5 → 2
    expect(computeFee(10_000, { bps: 99, fixedCents: 50 })).toBe(149);
  });

  it('never charges more than the amount', () => {
    expect(computeFee(10, { bps: 0, fixedCents: 100 })).toBe(10);
  });

  it('refuses non-integer amounts', () => {
    expect(() => computeFee(1.5, { bps: 1, fixedCents: 0 })).toThrow(RangeError);
  });
});

describe('allocateSplits', () => {
  it('rounds percentage shares down and leaves the remainder to the owner', () => {
    const r = allocateSplits(1_001, 10, [{ merchantId: 'a', percentage: 33.33 }]);
    expect(r).toEqual({
      ok: true,
      allocations: [{ merchantId: 'a', amountCents: 333, percentage: 33.33 }],
      ownerNetCents: 1_001 - 10 - 333,
    });
  });

  it('accepts fixed shares and reports their percentage', () => {
    const r = allocateSplits(10_000, 100, [{ merchantId: 'a', amountCents: 2_500 }]);
    expect(r.ok && r.allocations[0].percentage).toBe(25);
  });

  it('refuses shares beyond the amount after fees', () => {
    const r = allocateSplits(1_000, 10, [{ merchantId: 'a', amountCents: 991 }]);
    expect(r.ok).toBe(false);
  });

  it('refuses a split with both or neither of amountCents and percentage, and shares under a cent', () => {
    const r = allocateSplits(100, 0, [
      { merchantId: 'a' },
      { merchantId: 'b', amountCents: 1, percentage: 1 },
      { merchantId: 'c', percentage: 0.5 },
    ]);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.problems.map((p) => p.index)).toEqual([0, 1, 2]);
  });
});

describe('chargePaidEntry', () => {
  it('balances payer, owner, platform fee and split merchants', () => {
    const entry = chargePaidEntry({
      chargeId: 'c1',
      merchantId: '00000000-0000-0000-0000-000000000001',
      amountCents: 10_000,
      feeCents: 100,
      splits: [{ merchantId: '00000000-0000-0000-0000-000000000002', amountCents: 3_000 }],
    });
    expect(entry.movementKey).toBe('charge-paid:c1');
    expect(entry.postings).toEqual(
      expect.arrayContaining([
        { accountCode: accounts.pixPayins, amountCents: -10_000 },
        { accountCode: accounts.merchantAvailable('00000000-0000-0000-0000-000000000001'), amountCents: 6_900 },
        { accountCode: accounts.platformFees, amountCents: 100 },
        { accountCode: accounts.merchantAvailable('00000000-0000-0000-0000-000000000002'), amountCents: 3_000 },
      ]),
    );
    expect(entry.postings.reduce((s, p) => s + p.amountCents, 0)).toBe(0);
  });

  it('drops zero postings (no fee) and refuses a negative owner net', () => {
    const entry = chargePaidEntry({
      chargeId: 'c2',
      merchantId: '00000000-0000-0000-0000-000000000001',
      amountCents: 100,
      feeCents: 0,
      splits: [],
    });
    expect(entry.postings).toHaveLength(2);
    expect(() =>
      chargePaidEntry({
        chargeId: 'c3',
        merchantId: '00000000-0000-0000-0000-000000000001',
        amountCents: 100,
        feeCents: 10,
        splits: [{ merchantId: 'x', amountCents: 95 }],
      }),
    ).toThrow();
  });

  it('assertBalanced refuses unbalanced or zero postings', () => {
    expect(() => assertBalanced([{ accountCode: 'a', amountCents: 1 }])).toThrow(/unbalanced/);
    expect(() => assertBalanced([{ accountCode: 'a', amountCents: 0 }])).toThrow();
  });
});

describe('ledger accounts', () => {
  it('only lets external accounts go negative', () => {
    expect(describeAccount(accounts.pixPayins).allowNegative).toBe(true);
    expect(describeAccount(accounts.platformFees).allowNegative).toBe(false);
    expect(describeAccount(accounts.merchantReserved('00000000-0000-0000-0000-000000000001'))).toMatchObject({
      kind: 'MERCHANT_RESERVED',
      allowNegative: false,
    });
    expect(describeAccount(accounts.merchantBlocked('00000000-0000-0000-0000-000000000001'))).toMatchObject({
      kind: 'MERCHANT_BLOCKED',
      allowNegative: false,
      merchantId: '00000000-0000-0000-0000-000000000001',
    });
    expect(() => describeAccount('bogus')).toThrow();
  });

  it('a Pix infraction (MED) blocks and unblocks the same amount between available and blocked, once each by infraction id', () => {
    const m = { infractionId: 'inf-1', merchantId: '00000000-0000-0000-0000-000000000001', amountCents: 1_234 };
    const available = accounts.merchantAvailable(m.merchantId);
    const blocked = accounts.merchantBlocked(m.merchantId);
    const keys = movements.medInfraction(m.infractionId);
    const block = move(keys.block, available, blocked, m.amountCents);
    const unblock = move(keys.unblock, blocked, available, m.amountCents);
    expect(block).toMatchObject({
      movementKey: 'med-block:inf-1',
      kind: 'MED_BLOCKED',
      referenceType: 'med_infraction',
      referenceId: 'inf-1',
    });
    expect(block.postings).toEqual([
      { accountCode: accounts.merchantAvailable(m.merchantId), amountCents: -1_234 },
      { accountCode: accounts.merchantBlocked(m.merchantId), amountCents: 1_234 },
    ]);
    expect(unblock.movementKey).toBe('med-unblock:inf-1');
    expect(unblock.postings).toEqual(block.postings.map((p) => ({ ...p, amountCents: -p.amountCents })).reverse());
    expect(() => move(keys.block, available, blocked, 0)).toThrow();
  });
});

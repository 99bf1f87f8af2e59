import { movements, refundMoney, release, reserve, settle } from '../../core/ledger/postings';
import { refundShares } from '../../core/refunds/shares';

const charge = {
  amountCents: 10_001,
  feeCents: 99,
  splits: [
    { merchantId: 'm-split-a', amountCents: 2_503 },
    { merchantId: 'm-split-b', amountCents: 1_000 },
  ],
};
const sumOf = (s: ReturnType<typeof refundShares>) =>
  s.ownerCents + s.feeCents + s.splits.reduce((a, x) => a + x.amountCents, 0);

describe('refund shares', () => {
  it('a full refund gives back exactly what each party received', () => {
    const s = refundShares(charge, 0, 10_001);
    expect(s).toEqual({
      feeCents: 99,
      splits: [
        { merchantId: 'm-split-a', amountCents: 2_503 },
        { merchantId: 'm-split-b', amountCents: 1_000 },
      ],
      ownerCents: 10_001 - 99 - 3_503,
    });
  });

  it('partial refunds in any steps sum, per party, to exactly what each received', () => {
    for (const steps of [
      [1, 1, 9_999],
      [3_333, 3_333, 3_335],
      [7, 10_000 - 6],
      Array.from({ length: 41 }, (_, i) => (i < 40 ? 243 : 10_001 - 40 * 243)),
    ]) {
      let done = 0;
      const totals = { fee: 0, a: 0, b: 0, owner: 0 };
      for (const r of steps) {
        const s = refundShares(charge, done, r);
        expect(sumOf(s)).toBe(r);
        expect([s.feeCents, s.ownerCents, ...s.splits.map((x) => x.amountCents)].every((v) => v >= 0)).toBe(true);
        totals.fee += s.feeCents;
        totals.a += s.splits[0].amountCents;
        totals.b += s.splits[1].amountCents;
        totals.owner += s.ownerCents;
        done += r;
      }
      expect(totals).toEqual({ fee: 99, a: 2_503, b: 1_000, owner: 10_001 - 99 - 3_503 });
    }
  });

  it('refuses a refund beyond the paid amount, zero or fractional amounts', () => {
    expect(() => refundShares(charge, 10_000, 2)).toThrow(/exceeds/);
    expect(() => refundShares(charge, 0, 0)).toThrow();
    expect(() => refundShares(charge, 0, 1.5)).toThrow();
  });

  it('reserve, complete and release postings balance and mirror each other', () => {
    const shares = refundShares(charge, 0, 5_000);
    const money = refundMoney({ merchantId: 'm-owner', amountCents: 5_000, shares });
    const keys = movements.refund('r1');
    const reserved = reserve(keys.reserve, money.shares);
    const released = release(keys.release, money.shares);
    const complete = settle(keys.settle, money);
    for (const e of [reserved, released, complete]) expect(e.postings.reduce((a, p) => a + p.amountCents, 0)).toBe(0);
    // Release undoes the reserve exactly.
    const net = new Map<string, number>();
    for (const p of [...reserved.postings, ...released.postings])
      net.set(p.accountCode, (net.get(p.accountCode) ?? 0) + p.amountCents);
    expect([...net.values()].every((v) => v === 0)).toBe(true);
    expect(complete.postings).toContainEqual({ accountCode: 'external:provider_clearing', amountCents: 5_000 });
    expect(complete.postings).toContainEqual({ accountCode: 'platform:fees', amountCents: -shares.feeCents });
  });
});

/**
 * MED 2.0's pure rules (core/med/claim.ts, the MED postings): who a claim reaches and in what
 * proportion, what each party holds and owes, how credits recover a debt, what the devolução takes
 * from whom; and that every MED movement is balanced and never takes an available balance below 0.
 */
import { accounts, describeAccount } from '../../core/ledger/accounts';
import { medCancelDebt, medOpen, medRecover, movements, refundMoney, settle } from '../../core/ledger/postings';
import { blockOrOwe, claimShares, devolucaoOf, recoveryOf } from '../../core/med/claim';
import { creditsOf } from '../../activities/ledger/medRecovery';

const owner = '00000000-0000-0000-0000-00000000000a';
const partner = '00000000-0000-0000-0000-00000000000b';
const sum = (ps: { amountCents: number }[]) => ps.reduce((a, p) => a + p.amountCents, 0);

describe('claimShares', () => {
  const charge = {
    ownerMerchantId: owner,
    amountCents: 10_000,
    feeCents: 100,
    splits: [{ merchantId: partner, amountCents: 3_000 }],
  };

  it('reaches owner and partner in proportion to what each received; the platform bears its fee share', () => {
    expect(claimShares(charge, 0, 10_000)).toEqual({
      feeCents: 100,
      parties: [
        { merchantId: owner, shareCents: 6_900 },
        { merchantId: partner, shareCents: 3_000 },
      ],
    });
    const half = claimShares(charge, 0, 5_000);
    expect(half.feeCents + half.parties.reduce((a, p) => a + p.shareCents, 0)).toBe(5_000);
    expect(half.parties).toEqual([
      { merchantId: owner, shareCents: 3_450 },
      { merchantId: partner, shareCents: 1_500 },
    ]);
  });

  it('never claims more than is left to refund of the payment', () => {
    const rest = claimShares(charge, 8_000, 10_000);
    expect(rest.feeCents + rest.parties.reduce((a, p) => a + p.shareCents, 0)).toBe(2_000);
    expect(claimShares(charge, 10_000, 500)).toEqual({ feeCents: 0, parties: [{ merchantId: owner, shareCents: 0 }] });
  });

  it('a charge without splits: the owner alone', () => {
    expect(claimShares({ ...charge, splits: [] }, 0, 2_000)).toEqual({
      feeCents: 20,
      parties: [{ merchantId: owner, shareCents: 1_980 }],
    });
  });
});

describe('blockOrOwe', () => {
  it('blocks what is available up to the share and owes the rest', () => {
    expect(blockOrOwe(6_900, 1_900)).toEqual({ heldCents: 1_900, owedCents: 5_000 });
    expect(blockOrOwe(3_000, 5_000)).toEqual({ heldCents: 3_000, owedCents: 0 });
    expect(blockOrOwe(3_000, 0)).toEqual({ heldCents: 0, owedCents: 3_000 });
    expect(blockOrOwe(3_000, -5)).toEqual({ heldCents: 0, owedCents: 3_000 });
  });

  it("the owner also holds the platform's fee share when it has it, but never owes it", () => {
    expect(blockOrOwe(4_950, 9_900, 50)).toEqual({ heldCents: 5_000, owedCents: 0 });
    expect(blockOrOwe(1_980, 1_980, 20)).toEqual({ heldCents: 1_980, owedCents: 0 });
    expect(blockOrOwe(1_980, 1_000, 20)).toEqual({ heldCents: 1_000, owedCents: 980 });
  });
});

describe('recovery and devolução', () => {
  it('a credit pays the debt up to what is owed', () => {
    expect(recoveryOf(2_970, 5_000)).toBe(2_970);
    expect(recoveryOf(9_000, 2_030)).toBe(2_030);
    expect(recoveryOf(100, 0)).toBe(0);
  });

  it('the devolução takes the share from what is held; the rest is advanced (still owed)', () => {
    expect(devolucaoOf({ merchantId: owner, shareCents: 6_900, heldCents: 4_870, owedCents: 2_030 })).toEqual({
      fromHeldCents: 4_870,
      advancedCents: 2_030,
    });
    // The owner's hold of the platform's fee share goes back to it.
    expect(devolucaoOf({ merchantId: owner, shareCents: 4_950, heldCents: 5_000, owedCents: 0 })).toEqual({
      fromHeldCents: 4_950,
      advancedCents: 0,
    });
  });
});

describe('MED postings', () => {
  const m = movements.medInfraction('11111111-1111-1111-1111-111111111111');

  it('owed accounts may go negative (a debt); available, blocked never', () => {
    expect(describeAccount(accounts.merchantOwed(owner))).toMatchObject({
      kind: 'MERCHANT_OWED',
      merchantId: owner,
      allowNegative: true,
    });
    expect(describeAccount(accounts.merchantAvailable(owner)).allowNegative).toBe(false);
    expect(describeAccount(accounts.medClaims)).toMatchObject({ kind: 'EXTERNAL', allowNegative: true });
  });

  it('open: each party blocks what it has and owes the rest, in one balanced entry', () => {
    const e = medOpen(m.block, [
      { merchantId: owner, blockedCents: 1_900, owedCents: 5_000 },
      { merchantId: partner, blockedCents: 3_000, owedCents: 0 },
    ]);
    expect(sum(e.postings)).toBe(0);
    const by = new Map(e.postings.map((p) => [p.accountCode, p.amountCents]));
    expect(by.get(accounts.merchantAvailable(owner))).toBe(-1_900);
    expect(by.get(accounts.merchantBlocked(owner))).toBe(1_900);
    expect(by.get(accounts.merchantOwed(owner))).toBe(-5_000);
    expect(by.get(accounts.medClaims)).toBe(5_000);
    expect(by.get(accounts.merchantBlocked(partner))).toBe(3_000);
    expect(by.has(accounts.merchantOwed(partner))).toBe(false);
  });

  it('recover: held for an open case; to the platform once advanced; cancel: the debt gone', () => {
    const open = medRecover(m.recover(owner, 'charge-paid:x'), owner, 2_970, true);
    expect(open.movementKey).toBe(`med-recover:11111111-1111-1111-1111-111111111111:${owner}:charge-paid:x`);
    expect(sum(open.postings)).toBe(0);
    expect(new Map(open.postings.map((p) => [p.accountCode, p.amountCents]))).toEqual(
      new Map([
        [accounts.merchantAvailable(owner), -2_970],
        [accounts.medClaims, -2_970],
        [accounts.merchantOwed(owner), 2_970],
        [accounts.merchantBlocked(owner), 2_970],
      ]),
    );
    const after = medRecover(m.recover(owner, 'charge-paid:y'), owner, 100, false);
    expect(after.postings).toEqual([
      { accountCode: accounts.merchantAvailable(owner), amountCents: -100 },
      { accountCode: accounts.merchantOwed(owner), amountCents: 100 },
    ]);
    expect(() => medRecover(m.recover(owner, 'z'), owner, 0, true)).toThrow();
    expect(medCancelDebt(m.cancelDebt(owner), owner, 2_030).postings).toEqual([
      { accountCode: accounts.medClaims, amountCents: -2_030 },
      { accountCode: accounts.merchantOwed(owner), amountCents: 2_030 },
    ]);
  });

  it('a devolução with a debt: the platform advances it from med claims; shares + fee + advanced = amount', () => {
    const money = refundMoney({
      merchantId: owner,
      amountCents: 10_000,
      shares: {
        ownerCents: 4_870,
        feeCents: 100,
        splits: [{ merchantId: partner, amountCents: 3_000 }],
        advancedCents: 2_030,
      },
    });
    const e = settle(movements.refund('r').settle, money);
    expect(sum(e.postings)).toBe(0);
    expect(e.postings).toContainEqual({ accountCode: accounts.medClaims, amountCents: -2_030 });
    expect(e.postings).toContainEqual({ accountCode: accounts.providerClearing, amountCents: 10_000 });
    expect(() =>
      refundMoney({ merchantId: owner, amountCents: 10_000, shares: { ownerCents: 4_870, feeCents: 100, splits: [] } }),
    ).toThrow(/sum/);
    // Every other refund: no med claims line.
    const plain = settle(
      movements.refund('s').settle,
      refundMoney({ merchantId: owner, amountCents: 100, shares: { ownerCents: 99, feeCents: 1, splits: [] } }),
    );
    expect(plain.postings.some((p) => p.accountCode === accounts.medClaims)).toBe(false);
  });

  it("credits to recover from: every merchant available credit but MED's own movements", () => {
    const credits = creditsOf([
      {
        movementKey: 'charge-paid:c',
        kind: 'CHARGE_PAID',
        referenceType: 'charge',
        referenceId: 'c',
        postings: [
          { accountCode: accounts.pixPayins, amountCents: -1_000 },
          { accountCode: accounts.merchantAvailable(owner), amountCents: 690 },
          { accountCode: accounts.merchantAvailable(partner), amountCents: 300 },
          { accountCode: accounts.platformFees, amountCents: 10 },
        ],
      },
      {
        ...m.unblock,
        postings: [
          { accountCode: accounts.merchantBlocked(owner), amountCents: -5 },
          { accountCode: accounts.merchantAvailable(owner), amountCents: 5 },
        ],
      },
      {
        movementKey: 'withdrawal-reserve:w',
        kind: 'WITHDRAWAL_RESERVED',
        referenceType: 'withdrawal',
        referenceId: 'w',
        postings: [
          { accountCode: accounts.merchantAvailable(partner), amountCents: -7 },
          { accountCode: accounts.merchantReserved(partner), amountCents: 7 },
        ],
      },
    ]);
    expect(credits).toEqual(
      new Map([
        [owner, [{ key: 'charge-paid:c', cents: 690 }]],
        [partner, [{ key: 'charge-paid:c', cents: 300 }]],
      ]),
    );
  });
});

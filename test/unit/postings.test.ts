/**
 * The posting vocabulary (reserve, settle, release, move) writes each domain's movements with
 * fixed movement keys, kinds, references and amounts per account. The expected entries below are
 * literal: ledger rows already written and the writer's exactly-once (one transaction per
 * movement key) depend on them never changing.
 */
import { accounts } from '../../core/ledger/accounts';
import {
  assertBalanced,
  move,
  movements,
  payoutItemMoney,
  refundMoney,
  release,
  reserve,
  settle,
  withdrawalMoney,
  type LedgerEntry,
} from '../../core/ledger/postings';

const A = '00000000-0000-0000-0000-0000000000aa';
const B = '00000000-0000-0000-0000-0000000000bb';
const C = '00000000-0000-0000-0000-0000000000cc';

const code = (name: string) => {
  const [who, account] = name.split(':');
  const merchant = { A, B, C }[who];
  if (!merchant) return name;
  return account === 'available'
    ? accounts.merchantAvailable(merchant)
    : account === 'reserved'
      ? accounts.merchantReserved(merchant)
      : accounts.merchantBlocked(merchant);
};

/** The entry as the old builders wrote it: the movement and each account's amount (the order of lines aside). */
function expectEntry(
  actual: LedgerEntry,
  movementKey: string,
  kind: string,
  referenceType: string,
  referenceId: string,
  lines: Array<[string, number]>,
): void {
  expect({ ...actual, postings: undefined }).toEqual({
    movementKey,
    kind,
    referenceType,
    referenceId,
    postings: undefined,
  });
  const byAccount = (ps: Array<{ accountCode: string; amountCents: number }>) =>
    [...ps].sort((x, y) => (x.accountCode < y.accountCode ? -1 : 1));
  expect(byAccount(actual.postings)).toEqual(
    byAccount(lines.map(([name, amountCents]) => ({ accountCode: code(name), amountCents }))),
  );
  expect(() => assertBalanced(actual.postings)).not.toThrow();
}

describe('withdrawals (and scheduled settlements)', () => {
  const keys = movements.withdrawal('w1');
  const money = withdrawalMoney({ merchantId: A, amountCents: 10_000, feeCents: 250 });

  it('reserve, settle and release: amount + fee reserved, then the amount to provider clearing and the fee to the platform, or both back', () => {
    expectEntry(
      reserve(keys.reserve, money.shares),
      'withdrawal-reserve:w1',
      'WITHDRAWAL_RESERVED',
      'withdrawal',
      'w1',
      [
        ['A:available', -10_250],
        ['A:reserved', 10_250],
      ],
    );
    expectEntry(settle(keys.settle, money), 'withdrawal-complete:w1', 'WITHDRAWAL_COMPLETED', 'withdrawal', 'w1', [
      ['external:provider_clearing', 10_000],
      ['A:reserved', -10_250],
      ['platform:fees', 250],
    ]);
    expectEntry(
      release(keys.release, money.shares),
      'withdrawal-release:w1',
      'WITHDRAWAL_RELEASED',
      'withdrawal',
      'w1',
      [
        ['A:available', 10_250],
        ['A:reserved', -10_250],
      ],
    );
  });

  it('writes no fee line for a fee of 0', () => {
    const free = withdrawalMoney({ merchantId: A, amountCents: 10_000, feeCents: 0 });
    expectEntry(
      settle(movements.withdrawal('w0').settle, free),
      'withdrawal-complete:w0',
      'WITHDRAWAL_COMPLETED',
      'withdrawal',
      'w0',
      [
        ['external:provider_clearing', 10_000],
        ['A:reserved', -10_000],
      ],
    );
  });
});

describe('refunds (and MED devoluções)', () => {
  const keys = movements.refund('r1');
  const money = refundMoney({
    merchantId: A,
    amountCents: 5_000,
    shares: {
      ownerCents: 3_000,
      feeCents: 500,
      splits: [
        { merchantId: B, amountCents: 1_000 },
        { merchantId: C, amountCents: 500 },
      ],
    },
  });

  it('reserve, settle and release: each credited merchant reserves its share, the platform gives its fee share back, or the shares return', () => {
    expectEntry(reserve(keys.reserve, money.shares), 'refund-reserve:r1', 'REFUND_RESERVED', 'refund', 'r1', [
      ['A:available', -3_000],
      ['A:reserved', 3_000],
      ['B:available', -1_000],
      ['B:reserved', 1_000],
      ['C:available', -500],
      ['C:reserved', 500],
    ]);
    expectEntry(settle(keys.settle, money), 'refund-complete:r1', 'REFUND_COMPLETED', 'refund', 'r1', [
      ['external:provider_clearing', 5_000],
      ['A:reserved', -3_000],
      ['B:reserved', -1_000],
      ['C:reserved', -500],
      ['platform:fees', -500],
    ]);
    expectEntry(release(keys.release, money.shares), 'refund-release:r1', 'REFUND_RELEASED', 'refund', 'r1', [
      ['A:available', 3_000],
      ['A:reserved', -3_000],
      ['B:available', 1_000],
      ['B:reserved', -1_000],
      ['C:available', 500],
      ['C:reserved', -500],
    ]);
  });

  it('merges the lines of an owner that is also a split merchant, and drops a fee share of 0', () => {
    const keys2 = movements.refund('r2');
    const own = refundMoney({
      merchantId: A,
      amountCents: 1_000,
      shares: { ownerCents: 600, feeCents: 0, splits: [{ merchantId: A, amountCents: 400 }] },
    });
    expectEntry(reserve(keys2.reserve, own.shares), 'refund-reserve:r2', 'REFUND_RESERVED', 'refund', 'r2', [
      ['A:available', -1_000],
      ['A:reserved', 1_000],
    ]);
    expectEntry(settle(keys2.settle, own), 'refund-complete:r2', 'REFUND_COMPLETED', 'refund', 'r2', [
      ['external:provider_clearing', 1_000],
      ['A:reserved', -1_000],
    ]);
    expectEntry(release(keys2.release, own.shares), 'refund-release:r2', 'REFUND_RELEASED', 'refund', 'r2', [
      ['A:available', 1_000],
      ['A:reserved', -1_000],
    ]);
  });

  it('refuses shares that do not sum to the amount', () => {
    expect(() =>
      refundMoney({ merchantId: A, amountCents: 1_000, shares: { ownerCents: 500, feeCents: 0, splits: [] } }),
    ).toThrow(/sum/);
  });
});

describe('payout batches and items', () => {
  it("the batch reserve and the release of its unsent items move available and reserved under the batch's keys", () => {
    const keys = movements.payoutBatch('b1');
    expectEntry(
      reserve(keys.reserve, [{ merchantId: A, cents: 20_300 }]),
      'payout-reserve:b1',
      'PAYOUT_RESERVE',
      'payout_batch',
      'b1',
      [
        ['A:available', -20_300],
        ['A:reserved', 20_300],
      ],
    );
    expectEntry(
      release(keys.releaseUnsent, [{ merchantId: A, cents: 10_150 }]),
      'payout-cancel-release:b1',
      'PAYOUT_CANCEL_RELEASE',
      'payout_batch',
      'b1',
      [
        ['A:available', 10_150],
        ['A:reserved', -10_150],
      ],
    );
  });

  it('an item paid (the amount to provider clearing, the fee to the platform) or released; no fee line for a fee of 0', () => {
    const money = payoutItemMoney({ merchantId: A, amountCents: 10_000, feeCents: 150 });
    const keys = movements.payoutItem('it1');
    expectEntry(settle(keys.settle, money), 'payout-item-paid:it1', 'PAYOUT_ITEM_PAID', 'payout_item', 'it1', [
      ['external:provider_clearing', 10_000],
      ['A:reserved', -10_150],
      ['platform:fees', 150],
    ]);
    expectEntry(
      release(keys.release, money.shares),
      'payout-item-released:it1',
      'PAYOUT_ITEM_RELEASED',
      'payout_item',
      'it1',
      [
        ['A:available', 10_150],
        ['A:reserved', -10_150],
      ],
    );
    expectEntry(
      settle(movements.payoutItem('it0').settle, payoutItemMoney({ merchantId: A, amountCents: 10_000, feeCents: 0 })),
      'payout-item-paid:it0',
      'PAYOUT_ITEM_PAID',
      'payout_item',
      'it0',
      [
        ['external:provider_clearing', 10_000],
        ['A:reserved', -10_000],
      ],
    );
  });
});

describe('MED block and unblock', () => {
  it('a block moves available to blocked and an unblock moves it back, keyed by the infraction', () => {
    const keys = movements.medInfraction('i1');
    expectEntry(
      move(keys.block, accounts.merchantAvailable(A), accounts.merchantBlocked(A), 1_234),
      'med-block:i1',
      'MED_BLOCKED',
      'med_infraction',
      'i1',
      [
        ['A:available', -1_234],
        ['A:blocked', 1_234],
      ],
    );
    expectEntry(
      move(keys.unblock, accounts.merchantBlocked(A), accounts.merchantAvailable(A), 1_234),
      'med-unblock:i1',
      'MED_UNBLOCKED',
      'med_infraction',
      'i1',
      [
        ['A:available', 1_234],
        ['A:blocked', -1_234],
      ],
    );
  });
});

describe('the vocabulary', () => {
  it('puts the lines that take money out before the lines that put it in', () => {
    const e = reserve(movements.refund('r').reserve, [
      { merchantId: A, cents: 1 },
      { merchantId: B, cents: 2 },
    ]);
    expect(e.postings.map((p) => Math.sign(p.amountCents))).toEqual([-1, -1, 1, 1]);
  });

  it('refuses broken amounts', () => {
    expect(() => withdrawalMoney({ merchantId: A, amountCents: 0, feeCents: 250 })).toThrow();
    expect(() => withdrawalMoney({ merchantId: A, amountCents: 10.5, feeCents: 0 })).toThrow();
    expect(() => withdrawalMoney({ merchantId: A, amountCents: 1, feeCents: -1 })).toThrow();
    expect(() => reserve(movements.withdrawal('w').reserve, [{ merchantId: A, cents: -1 }])).toThrow();
    expect(() => move(movements.medInfraction('i').block, 'a', 'b', 0)).toThrow();
  });
});

/** Ledger rules: which postings each money movement makes. Pure; the DB layer writes them. */
import { accounts } from './accounts';

export interface Posting {
  accountCode: string;
  amountCents: number;
}

export interface LedgerEntry {
  /** Unique per money movement: writing the same key twice changes nothing. */
  movementKey: string;
  kind: string;
  referenceType: string;
  referenceId: string;
  postings: Posting[];
}

export function assertBalanced(postings: Posting[]): void {
  const sum = postings.reduce((s, p) => s + p.amountCents, 0);
  if (sum !== 0) throw new Error(`unbalanced ledger entry: postings sum to ${sum}`);
  for (const p of postings) {
    if (!Number.isSafeInteger(p.amountCents) || p.amountCents === 0)
      throw new Error(`invalid posting amount ${p.amountCents}`);
  }
}

/** Postings with the same account are merged and zero lines dropped (e.g. a fee of 0). */
function compact(postings: Posting[]): Posting[] {
  const byAccount = new Map<string, number>();
  for (const p of postings) byAccount.set(p.accountCode, (byAccount.get(p.accountCode) ?? 0) + p.amountCents);
  return [...byAccount].filter(([, v]) => v !== 0).map(([accountCode, amountCents]) => ({ accountCode, amountCents }));
}

export function chargePaidEntry(input: {
  chargeId: string;
  merchantId: string;
  amountCents: number;
  feeCents: number;
  splits: { merchantId: string; amountCents: number }[];
  /** Where the money came from: Pix payins by default; a boleto paid by barcode comes from boleto payins. */
  payinsAccount?: string;
  /**
   * Split recipients whose share the PSP did not pay at settlement (their account is at another
   * PSP): it stays in the owner's own account until sent from there (splitSendSettle), so it is
   * the owner's reserved, never its available nor yet the recipient's: the reserve of that send,
   * made as the money arrives. The owner's mirror (available + reserved + blocked) is then its saldo.
   */
  sentFromOwner?: readonly string[];
}): LedgerEntry {
  const shares = input.splits.reduce((s, x) => s + x.amountCents, 0);
  const ownerNet = input.amountCents - input.feeCents - shares;
  if (ownerNet < 0) throw new Error('charge owner net would be negative');
  const sent = new Set(input.sentFromOwner ?? []);
  const postings = compact([
    { accountCode: input.payinsAccount ?? accounts.pixPayins, amountCents: -input.amountCents },
    { accountCode: accounts.merchantAvailable(input.merchantId), amountCents: ownerNet },
    { accountCode: accounts.platformFees, amountCents: input.feeCents },
    ...input.splits.map((s) => ({
      accountCode: sent.has(s.merchantId)
        ? accounts.merchantReserved(input.merchantId)
        : accounts.merchantAvailable(s.merchantId),
      amountCents: s.amountCents,
    })),
  ]);
  assertBalanced(postings);
  return {
    movementKey: `charge-paid:${input.chargeId}`,
    kind: 'CHARGE_PAID',
    referenceType: 'charge',
    referenceId: input.chargeId,
    postings,
  };
}

/**
 * The movements of money out of a merchant's balance, in one vocabulary (a reserve, a settle, a
 * release, a move), for every outbound transfer: withdrawals (scheduled settlements are
 * withdrawals), refunds (a MED devolução is a refund), payout items; and for MED's block.
 *
 *   reserve  available → reserved, each share of who funds the transfer, when it is requested:
 *            concurrent requests cannot spend the same money, and nobody withdraws money being sent.
 *   settle   the transfer completed: the reserved shares leave; what was sent goes to provider
 *            clearing, the fee to the platform (a refund's fee share comes back from it: the
 *            platform keeps every fee it received, so it always covers its share).
 *   release  nothing left: the reserved shares go back (reserved → available).
 *   move     one amount from one account to another. MED: the disputed money is blocked while the
 *            infraction is open (available → blocked) and unblocked when it is rejected or its
 *            devolução is not made; an accepted infraction's block is unblocked in the DB
 *            transaction that reserves its refund, so it is never withdrawable in between.
 *
 * Settle and release are alternatives: the business row's status decides which one is written,
 * once. Each movement is keyed (`movements` below), so writing it twice changes nothing. Lines of
 * one account are merged and zero lines dropped (a fee of 0 writes no fee line); lines that take
 * money out come before lines that put it in.
 */

/** A movement without its postings: the key the writer applies exactly once, and what it is. */
export type Movement = Omit<LedgerEntry, 'postings'>;

/** What one merchant puts into a transfer, in cents. */
export interface Share {
  merchantId: string;
  cents: number;
}

/** Who funds an outbound transfer and where its money goes; the shares sum to sentCents + feeCents. */
export interface TransferMoney {
  /** Taken from each merchant's available balance while the transfer is open. */
  shares: Share[];
  /** Leaves through the provider (provider clearing). */
  sentCents: number;
  /** To the platform's fees; negative when the platform gives back a fee it received (refunds). */
  feeCents: number;
  /** A MED devolução only: what merchants still owe for it, paid by the platform (med claims, see "MED" above). */
  advancedCents?: number;
}

function entry(movement: Movement, postings: Posting[]): LedgerEntry {
  const lines = compact(postings).sort((a, b) => Math.sign(a.amountCents) - Math.sign(b.amountCents));
  assertBalanced(lines);
  return { ...movement, postings: lines };
}

function checkShares(shares: Share[]): void {
  for (const s of shares)
    if (!Number.isSafeInteger(s.cents) || s.cents < 0) throw new Error(`invalid share ${s.cents} of ${s.merchantId}`);
}

/** available → reserved, for each share. */
export function reserve(movement: Movement, shares: Share[]): LedgerEntry {
  checkShares(shares);
  return entry(
    movement,
    shares.flatMap((s) => [
      { accountCode: accounts.merchantAvailable(s.merchantId), amountCents: -s.cents },
      { accountCode: accounts.merchantReserved(s.merchantId), amountCents: s.cents },
    ]),
  );
}

/** reserved → provider clearing (what was sent) and platform fees (the fee), the transfer completed. */
export function settle(movement: Movement, money: TransferMoney): LedgerEntry {
  checkShares(money.shares);
  return entry(movement, [
    ...money.shares.map((s) => ({ accountCode: accounts.merchantReserved(s.merchantId), amountCents: -s.cents })),
    { accountCode: accounts.providerClearing, amountCents: money.sentCents },
    { accountCode: accounts.platformFees, amountCents: money.feeCents },
    { accountCode: accounts.medClaims, amountCents: -(money.advancedCents ?? 0) },
  ]);
}

/** reserved → available, for each share: nothing left. */
export function release(movement: Movement, shares: Share[]): LedgerEntry {
  checkShares(shares);
  return entry(
    movement,
    shares.flatMap((s) => [
      { accountCode: accounts.merchantReserved(s.merchantId), amountCents: -s.cents },
      { accountCode: accounts.merchantAvailable(s.merchantId), amountCents: s.cents },
    ]),
  );
}

/**
 * A split recipient's share sent from the charge owner's account to the recipient's own (at
 * another PSP) completed: it leaves the owner's reserved through the provider (provider clearing,
 * as every send), and arrives in the recipient's account as a Pix received (Pix payins → its
 * available). Both accounts' mirrors then equal their saldos. No fee: the platform took its fee
 * at settlement. A send that fails for good writes nothing: the share stays reserved in the
 * owner's account (it is the recipient's money), alerted (docs/account-models.md).
 */
export function splitSendSettle(
  movement: Movement,
  send: { ownerMerchantId: string; recipientMerchantId: string; cents: number },
): LedgerEntry {
  if (!Number.isSafeInteger(send.cents) || send.cents <= 0) throw new Error(`invalid split send ${send.cents}`);
  return entry(movement, [
    ...settle(movement, {
      shares: [{ merchantId: send.ownerMerchantId, cents: send.cents }],
      sentCents: send.cents,
      feeCents: 0,
    }).postings,
    { accountCode: accounts.pixPayins, amountCents: -send.cents },
    { accountCode: accounts.merchantAvailable(send.recipientMerchantId), amountCents: send.cents },
  ]);
}

/** `cents` (more than 0) from one account to another. */
export function move(movement: Movement, from: string, to: string, cents: number): LedgerEntry {
  const postings = [
    { accountCode: from, amountCents: -cents },
    { accountCode: to, amountCents: cents },
  ];
  assertBalanced(postings);
  return { ...movement, postings };
}

const movement = (movementKey: string, kind: string, referenceType: string, referenceId: string): Movement => ({
  movementKey,
  kind,
  referenceType,
  referenceId,
});

/**
 * Every movement's key, kind and reference, by what it belongs to. Ledger rows already written
 * and the writer's exactly-once (one row per movement_key) depend on these strings: never change one.
 */
export const movements = {
  withdrawal: (id: string) => ({
    reserve: movement(`withdrawal-reserve:${id}`, 'WITHDRAWAL_RESERVED', 'withdrawal', id),
    settle: movement(`withdrawal-complete:${id}`, 'WITHDRAWAL_COMPLETED', 'withdrawal', id),
    release: movement(`withdrawal-release:${id}`, 'WITHDRAWAL_RELEASED', 'withdrawal', id),
  }),
  refund: (id: string) => ({
    reserve: movement(`refund-reserve:${id}`, 'REFUND_RESERVED', 'refund', id),
    settle: movement(`refund-complete:${id}`, 'REFUND_COMPLETED', 'refund', id),
    release: movement(`refund-release:${id}`, 'REFUND_RELEASED', 'refund', id),
  }),
  /** A payout batch is reserved whole; each item settles or releases its own part. */
  payoutBatch: (id: string) => ({
    reserve: movement(`payout-reserve:${id}`, 'PAYOUT_RESERVE', 'payout_batch', id),
    /** One release for every item a cancel (or a stopped chunk) left unsent. */
    releaseUnsent: movement(`payout-cancel-release:${id}`, 'PAYOUT_CANCEL_RELEASE', 'payout_batch', id),
  }),
  payoutItem: (id: string) => ({
    settle: movement(`payout-item-paid:${id}`, 'PAYOUT_ITEM_PAID', 'payout_item', id),
    release: movement(`payout-item-released:${id}`, 'PAYOUT_ITEM_RELEASED', 'payout_item', id),
  }),
  /**
   * A Pix we sent (a withdrawal, a payout item) that its recipient sent back, in part or whole:
   * one credit per devolução the PSP reports (its id), back to who funded the send.
   */
  sentPixReturn: (transfer: { type: 'withdrawal' | 'payout_item'; id: string }, returnId: string) =>
    movement(`sent-pix-returned:${transfer.id}:${returnId}`, 'SENT_PIX_RETURNED', transfer.type, transfer.id),
  /** A split recipient's share sent from the charge owner's account (reserved at the charge's settlement). */
  splitSend: (id: string) => ({
    settle: movement(`split-send-complete:${id}`, 'SPLIT_SEND_COMPLETED', 'split_send', id),
  }),
  /**
   * One block per infraction (every party's hold and debt in one transaction); one unblock and one
   * debt cancel per party (the owner's unblock keeps MED 1's key); one recovery per party and credit
   * (the credit's own movement key: a credit is applied once, so is its recovery).
   */
  medInfraction: (id: string) => ({
    block: movement(`med-block:${id}`, 'MED_BLOCKED', 'med_infraction', id),
    unblock: movement(`med-unblock:${id}`, 'MED_UNBLOCKED', 'med_infraction', id),
    unblockParty: (merchantId: string) =>
      movement(`med-unblock:${id}:${merchantId}`, 'MED_UNBLOCKED', 'med_infraction', id),
    cancelDebt: (merchantId: string) =>
      movement(`med-debt-cancel:${id}:${merchantId}`, 'MED_DEBT_CANCELLED', 'med_infraction', id),
    recover: (merchantId: string, creditKey: string) =>
      movement(`med-recover:${id}:${merchantId}:${creditKey}`, 'MED_RECOVERED', 'med_infraction', id),
  }),
};

/**
 * MED 2.0 (issue 38): a claim blocks what each party has and records what it owes.
 *
 *   open      per party: available → blocked (what it has, up to its share), and its debt:
 *             owed −d, med claims +d (the claim no merchant money holds yet).
 *   recover   a later credit to a party's available while it owes: available → blocked and the
 *             debt down (owed +r, med claims −r), in the credit's DB transaction; once the
 *             devolução was paid (the platform advanced the debt): available → owed only.
 *   cancel    the claim refused, cancelled or its devolução not made: owed +d, med claims −d.
 *   devolução a refund (settle): what the parties held leaves their reserved, the platform's fee
 *             share its fees, and what is still owed med claims (advancedCents: the platform pays
 *             it and the merchant keeps owing it).
 * The available balance never goes negative: a debt is only ever an owed balance below zero.
 */
export interface MedHold {
  merchantId: string;
  blockedCents: number;
  owedCents: number;
}

/** Every party's block and debt of one claim, in one transaction. */
export function medOpen(m: Movement, parties: MedHold[]): LedgerEntry {
  for (const p of parties) checkShares([{ merchantId: p.merchantId, cents: p.blockedCents + p.owedCents }]);
  return entry(
    m,
    parties.flatMap((p) => [
      { accountCode: accounts.merchantAvailable(p.merchantId), amountCents: -p.blockedCents },
      { accountCode: accounts.merchantBlocked(p.merchantId), amountCents: p.blockedCents },
      { accountCode: accounts.merchantOwed(p.merchantId), amountCents: -p.owedCents },
      { accountCode: accounts.medClaims, amountCents: p.owedCents },
    ]),
  );
}

/** `cents` of a credit to the merchant's available pays its debt: held for the open case, or to the platform once advanced. */
export function medRecover(m: Movement, merchantId: string, cents: number, caseOpen: boolean): LedgerEntry {
  if (!Number.isSafeInteger(cents) || cents <= 0) throw new Error(`invalid recovery ${cents}`);
  return entry(m, [
    { accountCode: accounts.merchantAvailable(merchantId), amountCents: -cents },
    { accountCode: accounts.merchantOwed(merchantId), amountCents: cents },
    ...(caseOpen
      ? [
          { accountCode: accounts.merchantBlocked(merchantId), amountCents: cents },
          { accountCode: accounts.medClaims, amountCents: -cents },
        ]
      : []),
  ]);
}

/** The debt of a claim that will not be paid: owed +d, med claims −d. */
export function medCancelDebt(m: Movement, merchantId: string, cents: number): LedgerEntry {
  return move(m, accounts.medClaims, accounts.merchantOwed(merchantId), cents);
}

/**
 * A withdrawal (a scheduled settlement too): the merchant funds amount + fee; the amount goes to
 * its own Pix key, the fee to the platform.
 */
export function withdrawalMoney(w: { merchantId: string; amountCents: number; feeCents: number }): TransferMoney {
  if (!Number.isSafeInteger(w.amountCents) || w.amountCents <= 0)
    throw new Error(`invalid withdrawal amount ${w.amountCents}`);
  if (!Number.isSafeInteger(w.feeCents) || w.feeCents < 0) throw new Error(`invalid withdrawal fee ${w.feeCents}`);
  return {
    shares: [{ merchantId: w.merchantId, cents: w.amountCents + w.feeCents }],
    sentCents: w.amountCents,
    feeCents: w.feeCents,
  };
}

/**
 * A refund of a paid charge (core/refunds/shares.ts says who gives back what): the owner and each
 * split merchant fund their shares; the whole amount goes back to the payer; the platform gives
 * back its fee share, which is never reserved.
 */
export interface RefundMoney {
  merchantId: string;
  amountCents: number;
  shares: {
    ownerCents: number;
    feeCents: number;
    splits: { merchantId: string; amountCents: number }[];
    /** A MED devolução: what the parties still owe, advanced by the platform. */
    advancedCents?: number;
  };
}

export function refundMoney(r: RefundMoney): TransferMoney {
  const advancedCents = r.shares.advancedCents ?? 0;
  const sum =
    r.shares.ownerCents + r.shares.feeCents + advancedCents + r.shares.splits.reduce((a, s) => a + s.amountCents, 0);
  if (sum !== r.amountCents) throw new Error(`refund shares sum to ${sum}, not ${r.amountCents}`);
  return {
    advancedCents,
    shares: [
      { merchantId: r.merchantId, cents: r.shares.ownerCents },
      ...r.shares.splits.map((s) => ({ merchantId: s.merchantId, cents: s.amountCents })),
    ],
    sentCents: r.amountCents,
    feeCents: -r.shares.feeCents,
  };
}

/** A payout item: the merchant funds amount + fee (charged on top); the recipient receives the whole amount. */
export function payoutItemMoney(i: { merchantId: string; amountCents: number; feeCents: number }): TransferMoney {
  return {
    shares: [{ merchantId: i.merchantId, cents: i.amountCents + i.feeCents }],
    sentCents: i.amountCents,
    feeCents: i.feeCents,
  };
}

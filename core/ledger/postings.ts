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
    if (!Number.isSafeInteger(p.amountCents) || p.amountCents === 0) throw new Error(`invalid posting amount ${p.amountCents}`);
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
}): LedgerEntry {
  const shares = input.splits.reduce((s, x) => s + x.amountCents, 0);
  const ownerNet = input.amountCents - input.feeCents - shares;
  if (ownerNet < 0) throw new Error('charge owner net would be negative');
  const postings = compact([
    { accountCode: accounts.pixPayins, amountCents: -input.amountCents },
    { accountCode: accounts.merchantAvailable(input.merchantId), amountCents: ownerNet },
    { accountCode: accounts.platformFees, amountCents: input.feeCents },
    ...input.splits.map((s) => ({ accountCode: accounts.merchantAvailable(s.merchantId), amountCents: s.amountCents })),
  ]);
  assertBalanced(postings);
  return { movementKey: `charge-paid:${input.chargeId}`, kind: 'CHARGE_PAID', referenceType: 'charge', referenceId: input.chargeId, postings };
}

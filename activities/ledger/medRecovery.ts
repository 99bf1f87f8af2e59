/**
 * MED 2.0 recovery (issue 38): every credit to a merchant's available while it owes for a Pix
 * infraction pays that debt first, in the credit's own DB transaction, so the money is never
 * withdrawable in between. The one place that sees every credit (a charge paid, a split share, a
 * released reservation, a sent Pix returned, a split send received) is the ledger writer, which
 * calls this after applying its entries; MED's own movements (block, unblock, recovery) are not
 * credits to recover from.
 *
 * Per owing merchant, its cases oldest opened first (locked): an OPEN case holds what is
 * recovered (available → blocked, debt down); an ACCEPTED case whose devolução was paid had its
 * debt advanced by the platform, so the credit pays the platform back (available → owed). Cases
 * whose devolução is under way, and decided ones otherwise, recover nothing. Each recovery is one
 * keyed transaction (its case, its merchant, the credit's movement key): a credit is applied
 * once, so is its recovery. Most writes credit no merchant that owes: one read of owed balances.
 */
import type { Sequelize, Transaction } from 'sequelize';
import { accounts } from '../../core/ledger/accounts';
import { medRecover, movements, type LedgerEntry } from '../../core/ledger/postings';
import { recoveryOf } from '../../core/med/claim';
import { balanceStore } from '../../db/ledger';
import { medInfractionStore, type MedInfractionRow } from '../../db/med';

const AVAILABLE = /^merchant:([0-9a-f-]{36}):available$/;

/** The credits to merchants' available in these entries: per merchant, each entry's key and amount. */
export function creditsOf(applied: LedgerEntry[]): Map<string, { key: string; cents: number }[]> {
  const credits = new Map<string, { key: string; cents: number }[]>();
  for (const entry of applied) {
    if (entry.kind.startsWith('MED_')) continue;
    for (const p of entry.postings) {
      const merchantId = AVAILABLE.exec(p.accountCode)?.[1];
      if (!merchantId || p.amountCents <= 0) continue;
      const list = credits.get(merchantId) ?? [];
      list.push({ key: entry.movementKey, cents: p.amountCents });
      credits.set(merchantId, list);
    }
  }
  return credits;
}

/** The credited merchants that owe, with their cases locked: what recoverMedDebts works on. */
export interface MedDebtors {
  credits: Map<string, { key: string; cents: number }[]>;
  cases: Map<string, MedInfractionRow[]>;
}

/**
 * Locks the cases of every merchant these entries credit that owes, BEFORE the writer touches a
 * balance: every MED activity locks its case and then the parties' balances, so a credit that
 * locked the merchant's available first and its cases after could deadlock with a block or a
 * decision of the same case (test/integration/medRecoveryLocks.test.ts). All the merchants' cases
 * in one statement, oldest first, so two credits never lock them in two orders either. The owed
 * balances are read without a lock: a debt a concurrent block creates is recovered from the next credit.
 */
export async function lockMedDebtors(
  sequelize: Sequelize,
  entries: LedgerEntry[],
  transaction: Transaction,
): Promise<MedDebtors> {
  const credits = creditsOf(entries);
  const none: MedDebtors = { credits, cases: new Map() };
  if (credits.size === 0) return none;
  const merchants = [...credits.keys()].sort();
  const owed = await balanceStore.balancesOf(sequelize, merchants.map(accounts.merchantOwed), transaction);
  const owing = merchants.filter((m) => (owed.get(accounts.merchantOwed(m)) ?? 0) < 0);
  if (owing.length === 0) return none;
  return { credits, cases: await medInfractionStore.casesOwedByAny(sequelize, owing, transaction) };
}

/**
 * The debtors' credits of the entries the writer applied only (their cases were locked for every
 * entry, before the writer knew which keys were new): a replayed credit recovers nothing again.
 */
export function appliedOnly(debtors: MedDebtors, appliedKeys: ReadonlySet<string>): MedDebtors {
  if (debtors.cases.size === 0) return debtors;
  const credits = new Map<string, { key: string; cents: number }[]>();
  for (const [merchantId, list] of debtors.credits)
    credits.set(
      merchantId,
      list.filter((c) => appliedKeys.has(c.key)),
    );
  return { credits, cases: debtors.cases };
}

/** The recoveries the debtors' credits owe, written through `write` (the ledger writer), and each case's parties updated. */
export async function recoverMedDebts(
  sequelize: Sequelize,
  debtors: MedDebtors,
  transaction: Transaction,
  write: (entries: LedgerEntry[]) => Promise<unknown>,
): Promise<void> {
  for (const [merchantId, cases] of debtors.cases) {
    const entries: LedgerEntry[] = [];
    for (const credit of debtors.credits.get(merchantId) ?? []) {
      let left = credit.cents;
      for (const row of cases) {
        const party = row.parties?.find((p) => p.merchantId === merchantId);
        if (!party || left === 0) continue;
        const cents = recoveryOf(left, party.owedCents);
        if (cents === 0) continue;
        // Held (open or in defence): the recovery is held for the case; else the platform advanced it.
        const open = row.status === 'OPEN' || row.status === 'IN_DEFENCE';
        entries.push(
          medRecover(movements.medInfraction(row.id).recover(merchantId, credit.key), merchantId, cents, open),
        );
        party.owedCents -= cents;
        if (open) party.heldCents += cents;
        left -= cents;
      }
    }
    if (entries.length === 0) continue;
    await write(entries);
    for (const row of cases)
      if (row.parties) await medInfractionStore.setParties(sequelize, row, row.parties, transaction);
  }
}

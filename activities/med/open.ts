import type { Transaction } from 'sequelize';
import { accounts } from '../../core/ledger/accounts';
import { medOpen, movements } from '../../core/ledger/postings';
import { blockOrOwe, claimShares, type ClaimParty } from '../../core/med/claim';
import { paidMoney } from '../../core/refunds/paid';
import { chargeStore } from '../../db/charges';
import { balanceStore } from '../../db/ledger';
import { medInfractionStore, type MedInfractionRow } from '../../db/med';
import { refundStore } from '../../db/refunds';
import { writeLedgerEntry } from '../ledger/ledgerWriter';
import { block, locked, recordInfractionEvent, type MedActivityDeps } from './infraction';

/**
 * Holds the claim, once. On the platform's account (MED 2.0, core/med/claim.ts): the claim reaches
 * the owner and each split partner in proportion to what they received from the charge; each blocks
 * what its available balance has (available → blocked) and owes the rest (its owed account), all in
 * one keyed ledger transaction; later credits recover the debts (activities/ledger/medRecovery.ts).
 * A charge received on a connection: the merchant's PSP blocks its own account and the gateway keeps
 * no debt, so only what the owner's mirror holds is blocked (MED 1). A balance never goes negative.
 * Records med.infraction.opened.
 */
export async function blockMedInfraction(
  deps: MedActivityDeps,
  args: { infractionId: string },
): Promise<{ blockedCents: number }> {
  return locked(deps, args.infractionId, async (row, transaction) => {
    if (row.blocked_at) return { blockedCents: Number(row.blocked_cents) };
    const charge = await chargeStore.findCharge(row.charge_id, transaction);
    const updated =
      charge && !charge.pspConnectionId
        ? await holdClaim(deps, row, charge, transaction)
        : await blockOwnerOnly(deps, row, transaction);
    await recordInfractionEvent('med.infraction.opened', updated, transaction);
    return { blockedCents: Number(updated.blocked_cents) };
  });
}

/** MED 1, kept for a connection's charge: what the owner's available has, up to the disputed amount. */
async function blockOwnerOnly(
  deps: MedActivityDeps,
  row: MedInfractionRow,
  transaction: Transaction,
): Promise<MedInfractionRow> {
  const { sequelize } = deps;
  const available = await balanceStore.lockedBalance(
    sequelize,
    accounts.merchantAvailable(row.merchant_id),
    transaction,
  );
  const blockedCents = Math.max(0, Math.min(Number(row.disputed_cents), available ?? 0));
  if (blockedCents > 0) await writeLedgerEntry(sequelize, block(row, blockedCents), transaction);
  return medInfractionStore.markBlocked(sequelize, row.id, blockedCents, transaction);
}

async function holdClaim(
  deps: MedActivityDeps,
  row: MedInfractionRow,
  charge: NonNullable<Awaited<ReturnType<typeof chargeStore.findCharge>>>,
  transaction: Transaction,
): Promise<MedInfractionRow> {
  const { sequelize } = deps;
  const paid = paidMoney(charge);
  const splits = await chargeStore.splitsOf(charge.id, transaction);
  const already = await refundStore.refundTotal(sequelize, charge.id, 'committed', transaction);
  const claim = claimShares(
    {
      ...paid,
      ownerMerchantId: charge.merchantId,
      splits: splits.map((s) => ({ merchantId: s.merchantId, amountCents: s.amountCents })),
    },
    already,
    Number(row.disputed_cents),
  );
  // Each party's available under FOR UPDATE, in code order (as the ledger writer locks accounts).
  const byCode = [...claim.parties].sort((a, b) => (a.merchantId < b.merchantId ? -1 : 1));
  const availableOf = new Map<string, number>();
  for (const p of byCode)
    availableOf.set(
      p.merchantId,
      (await balanceStore.lockedBalance(sequelize, accounts.merchantAvailable(p.merchantId), transaction)) ?? 0,
    );
  const parties: ClaimParty[] = claim.parties.map((p) => {
    const extra = p.merchantId === charge.merchantId ? claim.feeCents : 0;
    const held = blockOrOwe(p.shareCents, availableOf.get(p.merchantId) ?? 0, extra);
    return { merchantId: p.merchantId, shareCents: p.shareCents, ...held };
  });
  const holds = parties
    .filter((p) => p.heldCents + p.owedCents > 0)
    .map((p) => ({ merchantId: p.merchantId, blockedCents: p.heldCents, owedCents: p.owedCents }));
  if (holds.length > 0)
    await writeLedgerEntry(sequelize, medOpen(movements.medInfraction(row.id).block, holds), transaction);
  const owner = parties.find((p) => p.merchantId === charge.merchantId);
  return medInfractionStore.markHeld(sequelize, row.id, owner?.heldCents ?? 0, parties, transaction);
}

export async function remindMedDeadline(deps: MedActivityDeps, args: { infractionId: string }): Promise<void> {
  await locked(deps, args.infractionId, async (row, transaction) => {
    if (row.status === 'OPEN') await recordInfractionEvent('med.infraction.deadline_approaching', row, transaction);
  });
}

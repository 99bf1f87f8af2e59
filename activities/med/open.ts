import { accounts } from '../../core/ledger/accounts';
import { balanceStore } from '../../db/ledger';
import { medInfractionStore } from '../../db/med';
import { writeLedgerEntry } from '../ledger/ledgerWriter';
import { block, locked, recordInfractionEvent, type MedActivityDeps } from './infraction';

/**
 * Blocks the disputed amount (available → blocked), once. When the available balance does not
 * cover it, what is available is blocked and blocked_cents says how much: a balance never goes
 * negative. Records med.infraction.opened.
 */
export async function blockMedInfraction(
  deps: MedActivityDeps,
  args: { infractionId: string },
): Promise<{ blockedCents: number }> {
  const { sequelize } = deps;
  return locked(deps, args.infractionId, async (row, transaction) => {
    if (row.blocked_at) return { blockedCents: Number(row.blocked_cents) };
    const available = await balanceStore.lockedBalance(
      sequelize,
      accounts.merchantAvailable(row.merchant_id),
      transaction,
    );
    const blockedCents = Math.max(0, Math.min(Number(row.disputed_cents), available ?? 0));
    if (blockedCents > 0) await writeLedgerEntry(sequelize, block(row, blockedCents), transaction);
    const updated = await medInfractionStore.markBlocked(sequelize, row.id, blockedCents, transaction);
    await recordInfractionEvent('med.infraction.opened', updated, transaction);
    return { blockedCents };
  });
}

export async function remindMedDeadline(deps: MedActivityDeps, args: { infractionId: string }): Promise<void> {
  await locked(deps, args.infractionId, async (row, transaction) => {
    if (row.status === 'OPEN') await recordInfractionEvent('med.infraction.deadline_approaching', row, transaction);
  });
}

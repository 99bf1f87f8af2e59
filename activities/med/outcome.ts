import { medInfractionStore } from '../../db/med';
import { writeLedgerEntry } from '../ledger/ledgerWriter';
import { locked, unblock, type MedActivityDeps } from './infraction';

/**
 * The devolução's outcome. Anything but SUCCEEDED gives the disputed money back to available:
 * a FAILED refund already released its shares to available (its reservation had unblocked
 * them); a REFUSED one never unblocked, so the block is released here (same movement key:
 * at most one unblock per infraction).
 */
export async function recordMedRefundOutcome(
  deps: MedActivityDeps,
  args: { infractionId: string; refundStatus: string },
): Promise<void> {
  const { sequelize } = deps;
  await locked(deps, args.infractionId, async (row, transaction) => {
    const blocked = Number(row.blocked_cents);
    if (args.refundStatus !== 'SUCCEEDED' && blocked > 0) {
      await writeLedgerEntry(sequelize, unblock(row, blocked), transaction);
    }
    await medInfractionStore.setRefundStatus(sequelize, row.id, args.refundStatus, transaction);
  });
}

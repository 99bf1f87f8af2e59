import { medInfractionStore } from '../../db/med';
import { locked, releaseClaim, type MedActivityDeps } from './infraction';

/**
 * The devolução's outcome. Anything but SUCCEEDED gives the claim's money back and cancels its
 * debts: a FAILED refund already released its shares to available (its reservation had unblocked
 * them); a REFUSED one never unblocked, so every party's hold is released here (same movement keys
 * as the reservation's unblocks: at most one unblock per party). SUCCEEDED: what the parties still
 * owe was advanced by the platform and stays owed (recovered from their later credits).
 */
export async function recordMedRefundOutcome(
  deps: MedActivityDeps,
  args: { infractionId: string; refundStatus: string },
): Promise<void> {
  const { sequelize } = deps;
  await locked(deps, args.infractionId, async (row, transaction) => {
    if (args.refundStatus !== 'SUCCEEDED') await releaseClaim(deps, row, transaction);
    await medInfractionStore.setRefundStatus(sequelize, row.id, args.refundStatus, transaction);
  });
}

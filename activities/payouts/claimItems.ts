/** The claim before the send: items marked SENDING, unless the merchant may not pay out or the batch is being cancelled. */
import { payoutRefusal } from '../../core/payouts/refusal';
import { payoutStore } from '../../db/payouts';
import type { PayoutDeps } from './deps';

/** An item marked SENDING, with what its transfer needs; `attempts` counts this claim. */
export interface ClaimedItem {
  id: string;
  amountCents: number;
  pixKey: string;
  pixKeyType: string;
  recipientName: string;
  recipientDocument: string | null;
  attempts: number;
}

/**
 * Marks items SENDING before anything is sent (items of one batch). Under a share lock on the
 * merchant row, so an operator's freeze (which updates that row) lands wholly before or after:
 * once it committed, no item of the merchant is claimed for a first send (parked). Nor once
 * the batch carries a cancel intent (cancelled; looked at when `batchId` is given). An item
 * already SENDING (a retry) may have reached the provider: it is always followed through.
 * Four round trips: the lock and what it decides in one query, the claim in one UPDATE.
 */
export async function claimItems(
  deps: Pick<PayoutDeps, 'sequelize'>,
  args: { itemIds: string[]; batchId?: string },
): Promise<{ claimed: ClaimedItem[]; parked: boolean; cancelled: boolean }> {
  const { sequelize } = deps;
  if (args.itemIds.length === 0) return { claimed: [], parked: false, cancelled: false };
  return sequelize.transaction(async (transaction) => {
    const control = await payoutStore.claimControl(sequelize, args.itemIds, transaction);
    if (!control) return { claimed: [], parked: false, cancelled: false };
    const hasPending = control.pending > 0;
    const parked =
      hasPending &&
      payoutRefusal({
        active: control.active,
        payoutsEnabled: control.payouts_enabled,
        withdrawalsFrozen: control.withdrawals_frozen,
      }) !== null;
    const cancelled = hasPending && args.batchId !== undefined && control.cancel_reason !== null;
    const claimed = await payoutStore.claimItemRows(sequelize, args.itemIds, !parked && !cancelled, transaction);
    claimed.sort((a, b) => a.row_index - b.row_index);
    return { claimed: claimed.map(claimedItemOf), parked, cancelled };
  });
}

function claimedItemOf(r: payoutStore.ClaimedRow): ClaimedItem {
  return {
    id: r.id,
    amountCents: r.amount_cents,
    pixKey: r.pix_key,
    pixKeyType: r.pix_key_type,
    recipientName: r.recipient_name,
    recipientDocument: r.recipient_document,
    attempts: r.attempts,
  };
}

import { payoutStore } from '../../db/payouts';
import { resolveTransfer } from '../transfers/transferSteps';
import type { PayoutDeps } from './deps';
import { settleItems } from './settleItems';

/** What became of one item in one call (payItem, resolveItem). */
export type ItemOutcome = 'PAID' | 'FAILED' | 'SKIPPED' | 'PARKED' | 'UNCONFIRMED';

/** After the grace period: the provider's record decides; with none, nothing was paid and the funding goes back. */
export async function resolveItem(
  deps: Pick<PayoutDeps, 'sequelize' | 'transfers'>,
  args: { itemId: string },
): Promise<ItemOutcome> {
  const item = await payoutStore.findItem(args.itemId);
  if (!item || item.status !== 'SENDING') return 'SKIPPED';
  const decision = await resolveTransfer(deps.transfers, { reference: item.id, amountCents: item.amountCents });
  return (await settleItems(deps, [{ itemId: item.id, decision }])).get(item.id) ?? 'SKIPPED';
}

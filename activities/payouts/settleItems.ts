/** The provider's answers recorded on the items: settled, released, or unconfirmed while they wait for the grace period. */
import { movements, payoutItemMoney, release, settle, type LedgerEntry } from '../../core/ledger/postings';
import { TRANSFER_NOT_ACCEPTED, describeTransferFailure } from '../../core/transfers/failures';
import { payoutStore } from '../../db/payouts';
import { recordEvents, type OutboxEventInput } from '../events/outbox';
import { settleOrRelease, type Moved, type TransferDecision } from '../transfers/transferSteps';
import type { PayoutDeps } from './deps';

type SettledOutcome = 'PAID' | 'FAILED' | 'SKIPPED';

/**
 * Records the provider's answers in one transaction (transferSteps.settleOrRelease, many rows):
 * PAID (money left), or FAILED with the funding released; items no longer SENDING are skipped.
 * Each item keeps its own ledger movement key and event, so an answer recorded twice changes
 * nothing the second time.
 */
export async function settleItems(
  deps: Pick<PayoutDeps, 'sequelize'>,
  decisions: Array<{ itemId: string; decision: TransferDecision }>,
): Promise<Map<string, SettledOutcome>> {
  const { sequelize } = deps;
  const outcomes = new Map<string, SettledOutcome>(decisions.map((a) => [a.itemId, 'SKIPPED']));
  if (decisions.length === 0) return outcomes;
  const byId = new Map(decisions.map((d) => [d.itemId, d.decision]));
  const rows = settlementRows(decisions);
  await settleOrRelease<payoutStore.SettledItem>(sequelize, {
    // Only items still SENDING move (the row lock orders a concurrent settle of the same item).
    transition: async (transaction) => {
      const settled = await payoutStore.settleItemRows(sequelize, rows, transaction);
      for (const item of settled) outcomes.set(item.id, item.status);
      return settled.map((row) => ({ row, decision: byId.get(row.id) as TransferDecision }));
    },
    entry: itemEntry,
    recorded: (settled, transaction) => recordEvents(settled.map(itemEvent), transaction),
  });
  return outcomes;
}

/** The provider refused the call and has no record yet: said on the item while it waits for the grace period. */
export async function markUnconfirmed(
  deps: Pick<PayoutDeps, 'sequelize'>,
  items: Array<{ itemId: string; code: string }>,
): Promise<void> {
  if (items.length === 0) return;
  await payoutStore.markItemsUnconfirmed(
    deps.sequelize,
    items,
    describeTransferFailure(TRANSFER_NOT_ACCEPTED.code).reason,
  );
}

/** The items' new rows for settleItemRows, in item id order. */
function settlementRows(
  decisions: Array<{ itemId: string; decision: TransferDecision }>,
): payoutStore.ItemSettlement[] {
  return [...decisions]
    .sort((a, b) => (a.itemId < b.itemId ? -1 : a.itemId > b.itemId ? 1 : 0))
    .map(({ itemId, decision }) =>
      decision.kind === 'SETTLE'
        ? {
            id: itemId,
            status: 'PAID',
            transferId: decision.providerTransferId,
            endToEndId: decision.endToEndId,
            reason: null,
            code: null,
          }
        : {
            id: itemId,
            status: 'FAILED',
            transferId: decision.providerTransferId,
            endToEndId: null,
            reason: decision.failure.reason,
            code: decision.failure.code,
          },
    );
}

function itemEntry({ row: item, decision }: Moved<payoutStore.SettledItem>): LedgerEntry {
  const keys = movements.payoutItem(item.id);
  const money = payoutItemMoney({
    merchantId: item.merchant_id,
    amountCents: item.amount_cents,
    feeCents: item.fee_cents,
  });
  return decision.kind === 'SETTLE' ? settle(keys.settle, money) : release(keys.release, money.shares);
}

function itemEvent({ row: item }: Moved<payoutStore.SettledItem>): OutboxEventInput {
  return {
    type: item.status === 'PAID' ? 'payout.item.paid' : 'payout.item.failed',
    merchantId: item.merchant_id,
    aggregateType: 'payout_item',
    aggregateId: item.id,
    payload: {
      id: item.id,
      batchId: item.batch_id,
      status: item.status,
      amountCents: item.amount_cents,
      referenceId: item.reference_id,
    },
  };
}

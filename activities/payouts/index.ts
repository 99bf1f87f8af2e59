/**
 * Payout activities: a batch's reserve, and its items' send, settle and release on the one
 * outbound transfer path (activities/transfers/transferSteps.ts states its rules). What a payout
 * adds: the batch is reserved whole (amount + fee of every item), each item settles or releases
 * its own part, and the items a cancel or a stopped chunk left unsent are released in one entry;
 * items are paid many per activity, claimed a wave at a time, sent through a sliding window and
 * settled in a few transactions; an
 * item's status moves only forward under row-level conditions, so a retried or re-run activity
 * changes nothing twice; no item is claimed for a first send while the merchant may not pay out
 * (the chunk parks) or the batch carries a cancel intent.
 *
 * This file is the list of the domain's activities; each lives in its own file and takes its
 * dependencies as its first parameter.
 */
import { providerOfTransfer } from '../transfers/transferAccounts';
import { createTransferPath } from '../transfers/transferPath';
import { listChunkItemIds, payItem } from './beforeSlicedPayments';
import { recordCancelIntent } from './cancel';
import { countChunkItems } from './chunkItems';
import { finishBatch, listSendingItemIds } from './finish';
import { payItems } from './payItems';
import { abandonReserve, reserveBatch } from './reserve';
import { resolveItem } from './resolveItem';
import type { PayoutActivityDeps, PayoutDeps } from './deps';

export function createPayoutActivities(activityDeps: PayoutActivityDeps) {
  const deps: PayoutDeps = {
    ...activityDeps,
    transfers: createTransferPath(providerOfTransfer(activityDeps), activityDeps.logger),
  };
  return {
    reserveBatch: (args: Parameters<typeof reserveBatch>[1]) => reserveBatch(deps, args),
    abandonReserve: (args: Parameters<typeof abandonReserve>[1]) => abandonReserve(deps, args),
    listChunkItemIds: (args: Parameters<typeof listChunkItemIds>[1]) => listChunkItemIds(deps, args),
    payItem: (args: Parameters<typeof payItem>[1]) => payItem(deps, args),
    payItems: (args: Parameters<typeof payItems>[1]) => payItems(deps, args),
    countChunkItems: (args: Parameters<typeof countChunkItems>[1]) => countChunkItems(deps, args),
    resolveItem: (args: Parameters<typeof resolveItem>[1]) => resolveItem(deps, args),
    recordCancelIntent,
    listSendingItemIds,
    finishBatch: (args: Parameters<typeof finishBatch>[1]) => finishBatch(deps, args),
  };
}

export type PayoutActivities = ReturnType<typeof createPayoutActivities>;

import { payoutStore } from '../../db/payouts';

/**
 * The cancel route's intent, recorded on the batch row before the workflow stops anything:
 * finishBatch reads it from there, so a finish already scheduled (or retrying) still sees it.
 * The first reason wins; a batch no longer PROCESSING is left as it is.
 */
export async function recordCancelIntent(args: { batchId: string; reason: string }): Promise<void> {
  await payoutStore.recordCancelIntent(args.batchId, args.reason);
}

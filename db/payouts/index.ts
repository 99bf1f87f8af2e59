/** The payouts domain's tables (payout_batches, payout_items), through one store. Models are exported as types only. */
export * as payoutStore from './payoutStore';
export type { PayoutBatch, PayoutBatchStatus } from './payoutBatch';
export type { PayoutItem, PayoutItemStatus } from './payoutItem';

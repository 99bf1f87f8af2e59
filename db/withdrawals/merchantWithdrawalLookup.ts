/** Kept for callers not yet moved to the store: the look-up lives in db/withdrawals/withdrawalStore.ts. */
export { findMerchantWithdrawal } from './withdrawalStore';

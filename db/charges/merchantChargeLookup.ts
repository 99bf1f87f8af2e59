/** Kept for callers not yet moved to the store: the look-up lives in db/charges/chargeStore.ts. */
export { findMerchantCharge } from './chargeStore';

/** Kept for callers not yet moved to the store: the sums live in db/refunds/refundStore.ts. */
export { refundTotal } from './refundStore';

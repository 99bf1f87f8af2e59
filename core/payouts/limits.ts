/** Payout batch bounds, documented in docs/api/payouts.md and OpenAPI. */
export const MAX_BATCH_ITEMS = 10_000;
export const MIN_ITEM_AMOUNT_CENTS = 1;
/** R$ 1,000,000.00 per transfer. */
export const MAX_ITEM_AMOUNT_CENTS = 100_000_000;
/** How many invalid fields a 400 lists before summarising the rest. */
export const MAX_REPORTED_ITEM_ERRORS = 100;

/** The checkouts domain's tables (checkouts, checkout_items), written by one store. Models are exported as types only. */
export * as checkoutStore from './checkoutStore';
export { CHECKOUT_STATUSES, type CheckoutKind, type CheckoutStatus } from './checkout';
export type { Checkout, CheckoutItem } from './checkout';

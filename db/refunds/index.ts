/** The refunds domain's table (refunds), read through its store. Models are exported as types only. */
export * as refundStore from './refundStore';
export type { Refund, RefundDestination, RefundStatus } from './refund';

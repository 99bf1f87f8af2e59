/** The idempotency_records table, through one store. */
export * as idempotencyStore from './idempotencyStore';
export type { StoredClaim } from './idempotencyStore';

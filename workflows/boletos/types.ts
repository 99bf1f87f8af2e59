/** Data crossing the BoletoBatch workflow boundary. Items never do: they live in the database. */
export interface BoletoBatchInput {
  batchId: string;
  merchantId: string;
  itemsCount: number;
  /** Items issued at once (each its own ChargeLifecycle through the one issue path). */
  concurrency: number;
}

/** The Update-With-Start answer: the batch and its item rows are stored and the run owns them. */
export interface BoletoBatchAccepted {
  batchId: string;
  status: 'PROCESSING';
  itemsCount: number;
}

export type BoletoItemOutcome = 'ISSUED' | 'FAILED' | 'CANCELLED' | 'SKIPPED';

export interface BoletoBatchOutcome {
  batchId: string;
  status: 'COMPLETED' | 'COMPLETED_WITH_FAILURES';
  issued: number;
  failed: number;
  cancelled: number;
}

/**
 * Tries per item, each with a new charge (a failed ChargeLifecycle leaves a tombstone on its
 * charge id). Each try is itself a ChargeLifecycle whose issue step retries the provider quickly.
 */
export const MAX_BOLETO_ITEM_ATTEMPTS = 4;

export const BoletoBatchFailureTypes = {
  batchNotFound: 'BoletoBatchNotFound',
  /** A transient issue failure of one try: the activity's retry policy tries again. */
  itemRetry: 'BoletoItemRetry',
} as const;

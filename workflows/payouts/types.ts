/** Data crossing the payout workflow boundary. Items never do: they live in the database. */
export interface PayoutBatchInput {
  batchId: string;
  merchantId: string;
  itemsCount: number;
  /** Items per child workflow: keeps each history small however large the batch. */
  chunkSize: number;
  /** Child workflows running at once. */
  parallelChunks: number;
  /** Provider transfers in flight at once within one chunk. */
  itemConcurrency: number;
  /**
   * Items paid by one activity (absent in batches started before slices: one wave of
   * itemConcurrency). A cancel from Temporal stops a chunk between slices.
   */
  sliceSize?: number;
}

export interface BatchReservation {
  batchId: string;
  status: 'PROCESSING';
  totalAmountCents: number;
  totalFeeCents: number;
  totalFundingCents: number;
  itemsCount: number;
}

export interface ChunkInput {
  batchId: string;
  fromRow: number;
  toRow: number;
  itemConcurrency: number;
  sliceSize?: number;
}

export interface ChunkResult {
  paid: number;
  failed: number;
  skipped: number;
}

export type FinalBatchStatus = 'COMPLETED' | 'COMPLETED_WITH_FAILURES' | 'FAILED' | 'CANCELLED';

export interface BatchOutcome {
  batchId: string;
  status: FinalBatchStatus | 'REJECTED';
  releasedAmountCents: number;
}

export interface BatchProgress {
  phase: string;
  itemsCount: number;
  chunksTotal: number;
  chunksDone: number;
  paid: number;
  failed: number;
  cancelReason: string | null;
}

export const PayoutFailureTypes = {
  insufficientBalance: 'InsufficientAvailableBalance',
  notCancellable: 'BatchNotCancellable',
  batchNotFound: 'BatchNotFound',
  /** The merchant may not pay out (frozen, inactive, payouts disabled); details[0] says which. */
  refused: 'PayoutRefused',
  /** The reserve could not be made in time; the staged batch was removed, nothing was reserved. */
  reservationUnavailable: 'ReservationUnavailable',
} as const;

export interface ReconcileSummary {
  kind: 'payout-batch' | 'withdrawal' | 'split-send';
  id: string;
  /** The row's status after the run: still PROCESSING while something waits for the grace period. */
  status: string;
  paid: number;
  released: number;
  /** Sent, no provider record yet, claimed less than TRANSFER_GRACE ago: the next run decides. */
  waiting: number;
  releasedAmountCents: number;
}

export const ReconcileFailureTypes = {
  notFound: 'ReconcileNotFound',
  running: 'WorkflowStillRunning',
} as const;

/** Nothing done yet to `kind` `id`, whose row is `status`. */
export function untouched(kind: ReconcileSummary['kind'], id: string, status: string): ReconcileSummary {
  return { kind, id, status, paid: 0, released: 0, waiting: 0, releasedAmountCents: 0 };
}

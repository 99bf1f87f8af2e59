/** A split share sent from the charge owner's account after settlement (activities/splitSends/). */
export interface SplitSendInput {
  /** The split_sends row, and the send's idempotency key. */
  splitSendId: string;
}

/** SENT: the share is in the recipient's account. FAILED: refused for good; it stays reserved in the owner's account, alerted. */
export type SplitSendStatus = 'SENT' | 'FAILED';

export interface SplitSendOutcome {
  splitSendId: string;
  /** SKIPPED: the provider's transfer is not ours; the share stays reserved, alerted. */
  status: SplitSendStatus | 'SKIPPED';
}

export const SplitSendFailureTypes = {
  /** The row is missing, or not owed (its charge not paid), or moved the other way before. */
  stateConflict: 'SplitSendStateConflict',
} as const;

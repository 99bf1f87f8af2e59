/** Data that crosses the workflow boundary for a Pix infraction (MED). Plain JSON. */
export type MedDecision = 'ACCEPT' | 'REJECT';

export interface MedInfractionInput {
  infractionId: string;
  merchantId: string;
  /** ISO instant: with no answer by then, DEFAULT_MED_DECISION is applied. */
  deadlineAt: string;
  /** How long before the deadline med.infraction.deadline_approaching is sent. */
  reminderBeforeMs: number;
}

/**
 * What the receiving PSP decided of a case (MED 2.0): the claim UPHELD over the merchant's defence
 * (the devolução is due), DISMISSED (the defence won), or the case CANCELLED (at any time before it
 * is decided). Read by the MED sync from the PSP and signalled to the case's workflow.
 */
export type PspOutcome = 'UPHELD' | 'DISMISSED' | 'CANCELLED';

export interface PspOutcomeSignal {
  outcome: PspOutcome;
}

export interface MedDecisionRequest {
  decision: MedDecision;
  justification: string;
  /** The deciding user's id, or 'DEFAULT' when the deadline passed unanswered. */
  decidedBy: string;
}

/** No answer by the deadline: the claim is lost, as an unanswered card dispute is (docs/api/med.md). */
export const DEFAULT_MED_DECISION: MedDecisionRequest = {
  decision: 'ACCEPT',
  justification: 'no analysis before the deadline',
  decidedBy: 'DEFAULT',
};

export interface MedSyncInput {
  /** Only for the answer's counts: the sync always pulls every account (the platform's, each active connection's). */
  merchantId?: string | null;
  analysisDeadlineMs: number;
  reminderBeforeMs: number;
}

export interface MedSyncResult {
  pulled: number;
  created: number;
  unmatched: number;
  /** Open infractions naming a charge received at another PSP account than the one that listed them: not stored. */
  otherAccount: number;
  /** Infraction ids (ours) created by this sync, for merchantId when given. */
  createdIds: string[];
  /** Held cases (OPEN, IN_DEFENCE) the PSP decided or cancelled, signalled to their workflows this time. */
  decidedAtPsp: number;
  /** Connections whose infractions could not be read this time (the others' were). */
  failedConnections: { connectionId: string; merchantId: string }[];
}

export const MedFailureTypes = {
  alreadyDecided: 'InfractionAlreadyDecided',
} as const;

/** The reminder before the deadline: a day, or a fifth of the window when the window is short (tests). */
export function reminderBeforeMs(analysisDeadlineMs: number, configured: number): number {
  return Math.min(configured, Math.floor(analysisDeadlineMs / 5));
}

/** A refund's requestedBy is a user id; the default decision has none. */
export function requesterOf(decidedBy: string): string | null {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(decidedBy) ? decidedBy : null;
}

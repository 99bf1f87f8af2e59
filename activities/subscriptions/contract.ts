/**
 * The subscription workflow's activities, as one interface (issue 39): the workflow
 * (workflows/subscriptions/subscriptionLifecycle.ts) imports this type only, and
 * createSubscriptionActivities (index.ts) must satisfy it. Every activity is idempotent: a retry
 * after a lost answer changes nothing twice (rows by key, the PSP asked before acting again).
 * Domain refusals are non-retryable ApplicationFailures; the PSP's transient errors are retried.
 */
import type { Attempt, CobrOutcome } from '../../core/subscriptions/retries';
import type { CancelledBy, SubscriptionState } from '../../core/subscriptions/states';
import type { PreparedSubscription, SubscriptionLifecycleInput } from '../../workflows/subscriptions/types';

/** The PSP's rec, read by GET /rec/{idRec}, with what the workflow acts on. */
export interface RecurrenceReading {
  status: 'CREATED' | 'APPROVED' | 'REJECTED' | 'EXPIRED' | 'CANCELLED';
  /** Who ended it (CANCELLED): the payer (or their PSP: PAYER), or the receiver's PSP (PSP); MERCHANT when we did. */
  cancelledBy: CancelledBy | null;
  /** The rules' code of a rejection or a cancellation (AP13, SLDB, ACCL…). */
  endingCode: string | null;
  /** Journey 3: our first charge's status (the cob whose payment authorises); null on journeys 1 and 2. */
  firstCharge: 'PENDING' | 'PAID' | 'CLOSED' | null;
}

/** One cycle's cobr, read by GET /cobr/{txid}, in the terms core/subscriptions/retries.ts decides on. */
export interface CycleReading {
  cobr: CobrOutcome;
  attempts: Attempt[];
}

/** The subscription.* event a state change emits (core/events/events.ts), or none. */
export type SubscriptionEventName =
  | 'subscription.created'
  | 'subscription.authorised'
  | 'subscription.cycle.paid'
  | 'subscription.cycle.failed'
  | 'subscription.cancelled';

export interface SubscriptionActivities {
  /** Inserts the subscriptions row (ON CONFLICT DO NOTHING), its PENDING enrolment and subscription.created. */
  recordSubscription(input: SubscriptionLifecycleInput): Promise<void>;
  /**
   * Creates at the PSP what the payer is asked with and stores it on the row: journeys 2 and 3 a
   * locrec and the rec (journey 3 naming the first charge's txid), then the QR (GET /rec/{idRec},
   * with ?txid= for journey 3's composite); journey 1 the rec and its solicrec. Finds what an earlier
   * attempt created instead of creating twice. `firstAttemptAt`: the workflow's start (RFC 3339).
   */
  createRecurrence(args: { subscriptionId: string; firstAttemptAt: string }): Promise<PreparedSubscription>;
  readRecurrence(args: { subscriptionId: string }): Promise<RecurrenceReading>;
  /**
   * The subscription's new state on its row (authorised_at, ended_at, cancelled_by, ending_code as
   * they apply) and its enrolment's, and `event` (keyed by subscription, event and cycle: once),
   * in one transaction.
   */
  recordSubscriptionState(args: {
    subscriptionId: string;
    state: SubscriptionState;
    event: SubscriptionEventName | null;
    cycle: number | null;
    cancelledBy?: CancelledBy | null;
    endingCode?: string | null;
  }): Promise<void>;
  /** Journey 3: cycle 1 was paid by the first charge (settled by its charge lifecycle): its cycle row, PAID. */
  recordFirstCycle(args: { subscriptionId: string; dueDate: string; settlementDate: string }): Promise<void>;
  /**
   * Issues cycle `cycle`: its charge row (PENDING, subscription_id set, the merchant's fee), its
   * cycle row (ISSUED) and the cobr (PUT /cobr/{txid}, txid from apiPixIds.cycleTxidFor).
   */
  issueCycle(args: {
    subscriptionId: string;
    cycle: number;
    dueDate: string;
    settlementDate: string;
  }): Promise<{ txid: string; chargeId: string }>;
  readCycle(args: { subscriptionId: string; cycle: number }): Promise<CycleReading>;
  /** POST /cobr/{txid}/retentativa/{date}; the cycle RETRYING, one more retry counted. */
  requestCycleRetry(args: { subscriptionId: string; cycle: number; date: string }): Promise<void>;
  /**
   * Credits the paid cycle on the cobr's record like any Pix charge (ledger with fee and splits,
   * charge PAID, charge.paid, receipt), the cycle PAID: once. NOT_CONFIRMED when the PSP's record
   * does not show it paid (nothing credited).
   */
  settleCycle(args: {
    subscriptionId: string;
    cycle: number;
  }): Promise<{ outcome: 'SETTLED' | 'ALREADY_PAID' | 'NOT_CONFIRMED' }>;
  /** The cycle failed for good: FAILED with the reason; its charge closed unpaid (EXPIRED). */
  failCycle(args: {
    subscriptionId: string;
    cycle: number;
    reason: string;
    rejectionCode: string | null;
  }): Promise<void>;
  /** The merchant cancels: the rec CANCELADA at the PSP, an open cobr CANCELADA and its charge CANCELLED. */
  cancelAtProvider(args: { subscriptionId: string }): Promise<void>;
}

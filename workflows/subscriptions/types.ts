/**
 * What the subscription's workflow takes and answers (issue 39), shared with the API and the
 * activities as types only. Dates are YYYY-MM-DD (Brasília), instants RFC 3339.
 */
import type { SubscriptionInterval } from '../../core/subscriptions/calendar';
import type { RetryPolicy } from '../../core/subscriptions/retries';
import type { CancelledBy, SubscriptionState } from '../../core/subscriptions/states';

/** How the payer authorises: 1 a request to their PSP (solicrec), 2 a QR that only authorises, 3 a QR whose payment authorises. */
export type SubscriptionJourney = 'JOURNEY_1' | 'JOURNEY_2' | 'JOURNEY_3';

/** Journey 1: the payer's account, where their PSP shows the authorisation request. */
export interface SubscriptionPayerAccount {
  /** The payer's PSP (ISPB, 8 digits). */
  ispb: string;
  branch: string | null;
  account: string;
}

/** Everything the workflow needs; written once as the subscriptions row by its first activity. */
export interface SubscriptionLifecycleInput {
  subscriptionId: string;
  merchantId: string;
  courseId: string;
  priceId: string;
  /** The course's title: the rec's `vinculo.objeto` (cut to 35) and each cycle charge's description. */
  courseTitle: string;
  journey: SubscriptionJourney;
  interval: SubscriptionInterval;
  retryPolicy: RetryPolicy;
  amountCents: number;
  /** Cycle 1's due date: today for journey 3 (paid by the first cob), later for journeys 1 and 2. */
  firstDueDate: string;
  lastDueDate: string | null;
  payer: { name: string; document: string };
  payerAccount: SubscriptionPayerAccount | null;
  /** Journey 3: the Pix charge (issued through the one charge path before the workflow starts) that pays cycle 1. */
  firstChargeId: string | null;
  externalId: string | null;
  metadata: Record<string, unknown>;
  returnUrl: string | null;
  idempotencyKey: string | null;
  /** Set by continue-as-new only: where the previous run stopped. */
  carried?: SubscriptionCarried;
}

/** The state a run hands to the next one (continue-as-new keeps the history bounded over years). */
export interface SubscriptionCarried {
  state: SubscriptionState;
  idRec: string;
  /** The next cycle to charge. */
  nextCycle: number;
}

/** What prepareSubscription answers: the recurrence exists at the PSP and the payer can be asked. */
export interface PreparedSubscription {
  subscriptionId: string;
  idRec: string;
  state: SubscriptionState;
  /** Journeys 2 and 3: the QR's copy-and-paste text (journey 3: the composite one, cob + rec). */
  qrCopyPaste: string | null;
  /** Journey 1: the solicrec sent to the payer's PSP. */
  authorizationRequestId: string | null;
}

export interface SubscriptionStatusView {
  state: SubscriptionState;
  idRec: string | null;
  /** The cycle being charged or waited for. */
  cycle: number;
  cancelledBy: CancelledBy | null;
}

/** A notice about one cycle's cobr (webhookcobr, or a Pix on its txid): only a reason to read it. */
export interface CycleNotice {
  txid: string;
}

/** ApplicationFailure types the workflow's updates fail with (the API maps them to its answers). */
export const SubscriptionFailureTypes = {
  /** cancelSubscription on a subscription in a final state (CANCELLED, REFUSED, EXPIRED): 409 SUBSCRIPTION_ALREADY_ENDED. */
  alreadyEnded: 'SubscriptionAlreadyEnded',
  /** prepareSubscription: the recurrence could not be created at the PSP (the subscription ends EXPIRED). */
  notPrepared: 'SubscriptionNotPrepared',
} as const;

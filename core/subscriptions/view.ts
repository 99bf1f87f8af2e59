/**
 * A subscription as the merchant sees it: the one shape GET /subscriptions/{id} (and the partners'
 * /v1 route) answers and every subscription.* webhook event carries. Pure: the caller reads the row
 * and its current cycle (db/subscriptions) and passes them in.
 */
import { maskDocument } from '../masking';
import type { SubscriptionInterval } from './calendar';
import type { RetryPolicy } from './retries';
import { enrolmentAccess, type CancelledBy, type EnrolmentAccess, type SubscriptionState } from './states';

export type SubscriptionJourneyName = 'JOURNEY_1' | 'JOURNEY_2' | 'JOURNEY_3';
export type CycleStatus = 'ISSUED' | 'RETRYING' | 'PAID' | 'FAILED' | 'CANCELLED';

/** The subscriptions row, as db/subscriptions reads it. */
export interface SubscriptionRow {
  id: string;
  merchantId: string;
  courseId: string;
  priceId: string;
  status: SubscriptionState;
  journey: SubscriptionJourneyName;
  interval: SubscriptionInterval;
  retryPolicy: RetryPolicy;
  amountCents: number;
  firstDueDate: string;
  lastDueDate: string | null;
  payerName: string;
  payerDocument: string;
  idRec: string | null;
  firstChargeId: string | null;
  qrCopyPaste: string | null;
  authorizationRequestId: string | null;
  externalId: string | null;
  metadata: Record<string, unknown>;
  returnUrl: string | null;
  cancelledBy: CancelledBy | null;
  endingCode: string | null;
  authorisedAt: Date | null;
  endedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** One subscription_cycles row. */
export interface CycleRow {
  cycle: number;
  txid: string | null;
  chargeId: string;
  dueDate: string;
  settlementDate: string;
  status: CycleStatus;
  retries: number;
  failureReason: string | null;
  rejectionCode: string | null;
  paidAt: Date | null;
}

export interface CycleView {
  cycle: number;
  dueDate: string;
  settlementDate: string;
  status: CycleStatus;
  /** The Pix charge the cycle settles as (GET /charges/{id}, its receipt, its refund). */
  chargeId: string;
  retries: number;
  failureReason: string | null;
  rejectionCode: string | null;
  paidAt: string | null;
}

export interface SubscriptionView {
  id: string;
  merchantId: string;
  courseId: string;
  priceId: string;
  status: SubscriptionState;
  /** The enrolment's access in this state (core/subscriptions/states.ts). */
  access: EnrolmentAccess;
  hasAccess: boolean;
  journey: SubscriptionJourneyName;
  interval: SubscriptionInterval;
  retryPolicy: RetryPolicy;
  amountCents: number;
  firstDueDate: string;
  lastDueDate: string | null;
  payer: { name: string; document: string };
  /** The PSP's recurrence (idRec), once created. */
  recurrenceId: string | null;
  /** The hosted page where the payer sees the terms and the QR (journeys 2 and 3). */
  url: string;
  /** While awaiting authorisation, journeys 2 and 3: the QR's copy-and-paste text. */
  qrCopyPaste: string | null;
  authorizationRequestId: string | null;
  firstChargeId: string | null;
  /** The latest cycle issued (null before the first). */
  currentCycle: CycleView | null;
  cancelledBy: CancelledBy | null;
  endingCode: string | null;
  externalId: string | null;
  metadata: Record<string, unknown>;
  authorisedAt: string | null;
  endedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** Where the payer is sent: the hosted subscription page (api/subscriptions/page). */
export function subscriptionPageUrl(publicBaseUrl: string, subscriptionId: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/subscribe/${subscriptionId}`;
}

export function presentCycle(row: CycleRow): CycleView {
  return {
    cycle: row.cycle,
    dueDate: row.dueDate,
    settlementDate: row.settlementDate,
    status: row.status,
    chargeId: row.chargeId,
    retries: row.retries,
    failureReason: row.failureReason,
    rejectionCode: row.rejectionCode,
    paidAt: row.paidAt ? row.paidAt.toISOString() : null,
  };
}

export function presentSubscription(
  row: SubscriptionRow,
  currentCycle: CycleRow | null,
  publicBaseUrl: string,
): SubscriptionView {
  const { access, hasAccess } = enrolmentAccess(row.status);
  return {
    id: row.id,
    merchantId: row.merchantId,
    courseId: row.courseId,
    priceId: row.priceId,
    status: row.status,
    access,
    hasAccess,
    journey: row.journey,
    interval: row.interval,
    retryPolicy: row.retryPolicy,
    amountCents: row.amountCents,
    firstDueDate: row.firstDueDate,
    lastDueDate: row.lastDueDate,
    payer: { name: row.payerName, document: maskDocument(row.payerDocument) },
    recurrenceId: row.idRec,
    url: subscriptionPageUrl(publicBaseUrl, row.id),
    qrCopyPaste: row.status === 'AWAITING_AUTHORISATION' ? row.qrCopyPaste : null,
    authorizationRequestId: row.authorizationRequestId,
    firstChargeId: row.firstChargeId,
    currentCycle: currentCycle ? presentCycle(currentCycle) : null,
    cancelledBy: row.cancelledBy,
    endingCode: row.endingCode,
    externalId: row.externalId,
    metadata: row.metadata,
    authorisedAt: row.authorisedAt ? row.authorisedAt.toISOString() : null,
    endedAt: row.endedAt ? row.endedAt.toISOString() : null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

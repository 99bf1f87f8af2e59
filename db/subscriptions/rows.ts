/**
 * How a subscriptions or subscription_cycles row is read (migration 0045), once for every reader:
 * the store (the activities' reads and its writes' answers) and the API's queries. DATE columns
 * come back as YYYY-MM-DD text; rows as core/subscriptions/view.ts SubscriptionRow / CycleRow,
 * with what the activities need beside them.
 */
import type { SubscriptionInterval } from '../../core/subscriptions/calendar';
import type { RetryPolicy } from '../../core/subscriptions/retries';
import type { CancelledBy, SubscriptionState } from '../../core/subscriptions/states';
import type { CycleRow, CycleStatus, SubscriptionJourneyName, SubscriptionRow } from '../../core/subscriptions/view';

export interface SubscriptionRecord {
  id: string;
  merchant_id: string;
  course_id: string;
  price_id: string;
  status: SubscriptionState;
  journey: SubscriptionJourneyName;
  interval: SubscriptionInterval;
  retry_policy: RetryPolicy;
  amount_cents: string | number;
  first_due_date: string;
  last_due_date: string | null;
  payer_name: string;
  payer_document: string;
  payer_account: { ispb: string; branch: string | null; account: string } | null;
  psp_connection_id: string | null;
  id_rec: string | null;
  first_charge_id: string | null;
  qr_copy_paste: string | null;
  authorization_request_id: string | null;
  external_id: string | null;
  metadata: Record<string, unknown> | null;
  return_url: string | null;
  cancelled_by: CancelledBy | null;
  ending_code: string | null;
  authorised_at: Date | null;
  ended_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface CycleRecord {
  subscription_id: string;
  cycle: number;
  txid: string | null;
  charge_id: string;
  due_date: string;
  settlement_date: string;
  status: CycleStatus;
  retries: number;
  failure_reason: string | null;
  rejection_code: string | null;
  paid_at: Date | null;
}

/** What the activities need beside the view: the payer's account (journey 1) and the PSP account. */
export interface StoredSubscription extends SubscriptionRow {
  payerAccount: { ispb: string; branch: string | null; account: string } | null;
  /** The merchant's PSP connection the recurrence lives at (null: the platform's account). */
  pspConnectionId: string | null;
}

/** A cycle row with its subscription's id (what a notice by txid finds). */
export interface StoredCycle extends CycleRow {
  subscriptionId: string;
}

export function subscriptionOf(r: SubscriptionRecord): StoredSubscription {
  return {
    id: r.id,
    merchantId: r.merchant_id,
    courseId: r.course_id,
    priceId: r.price_id,
    status: r.status,
    journey: r.journey,
    interval: r.interval,
    retryPolicy: r.retry_policy,
    amountCents: Number(r.amount_cents),
    firstDueDate: r.first_due_date,
    lastDueDate: r.last_due_date,
    payerName: r.payer_name,
    payerDocument: r.payer_document,
    payerAccount: r.payer_account,
    pspConnectionId: r.psp_connection_id,
    idRec: r.id_rec,
    firstChargeId: r.first_charge_id,
    qrCopyPaste: r.qr_copy_paste,
    authorizationRequestId: r.authorization_request_id,
    externalId: r.external_id,
    metadata: r.metadata ?? {},
    returnUrl: r.return_url,
    cancelledBy: r.cancelled_by,
    endingCode: r.ending_code,
    authorisedAt: r.authorised_at,
    endedAt: r.ended_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export function cycleOf(r: CycleRecord): StoredCycle {
  return {
    subscriptionId: r.subscription_id,
    cycle: Number(r.cycle),
    txid: r.txid,
    chargeId: r.charge_id,
    dueDate: r.due_date,
    settlementDate: r.settlement_date,
    status: r.status,
    retries: Number(r.retries),
    failureReason: r.failure_reason,
    rejectionCode: r.rejection_code,
    paidAt: r.paid_at,
  };
}

// DATE columns as YYYY-MM-DD text: pg would otherwise read them as local-midnight Dates.
export const SUBSCRIPTION_COLUMNS = `id, merchant_id, course_id, price_id, status, journey, interval, retry_policy, amount_cents,
  to_char(first_due_date, 'YYYY-MM-DD') AS first_due_date, to_char(last_due_date, 'YYYY-MM-DD') AS last_due_date,
  payer_name, payer_document, payer_account, psp_connection_id, id_rec, first_charge_id, qr_copy_paste,
  authorization_request_id, external_id, metadata, return_url, cancelled_by, ending_code, authorised_at, ended_at,
  created_at, updated_at`;
export const CYCLE_COLUMNS = `subscription_id, cycle, txid, charge_id, to_char(due_date, 'YYYY-MM-DD') AS due_date,
  to_char(settlement_date, 'YYYY-MM-DD') AS settlement_date, status, retries, failure_reason, rejection_code, paid_at`;

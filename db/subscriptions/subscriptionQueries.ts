/**
 * Reads of subscriptions and their cycles, for the API (routes and the hosted page). SELECT only:
 * the subscription's workflow is the one writer (subscriptionStore.ts). Rows come back in the
 * merchant's view's shapes (core/subscriptions/view.ts), so the API presents them as they are.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import type { SubscriptionState } from '../../core/subscriptions/states';
import type { CycleRow, SubscriptionRow } from '../../core/subscriptions/view';

const SUBSCRIPTION_COLUMNS = `id, merchant_id, course_id, price_id, status, journey, interval, retry_policy,
  amount_cents, to_char(first_due_date, 'YYYY-MM-DD') AS first_due_date,
  to_char(last_due_date, 'YYYY-MM-DD') AS last_due_date, payer_name, payer_document, id_rec, first_charge_id,
  qr_copy_paste, authorization_request_id, external_id, metadata, return_url, cancelled_by, ending_code,
  authorised_at, ended_at, created_at, updated_at`;

interface SubscriptionDbRow {
  id: string;
  merchant_id: string;
  course_id: string;
  price_id: string;
  status: SubscriptionRow['status'];
  journey: SubscriptionRow['journey'];
  interval: SubscriptionRow['interval'];
  retry_policy: SubscriptionRow['retryPolicy'];
  amount_cents: string | number;
  first_due_date: string;
  last_due_date: string | null;
  payer_name: string;
  payer_document: string;
  id_rec: string | null;
  first_charge_id: string | null;
  qr_copy_paste: string | null;
  authorization_request_id: string | null;
  external_id: string | null;
  metadata: Record<string, unknown> | null;
  return_url: string | null;
  cancelled_by: SubscriptionRow['cancelledBy'];
  ending_code: string | null;
  authorised_at: Date | null;
  ended_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

function toRow(r: SubscriptionDbRow): SubscriptionRow {
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

/**
 * The subscription, when it is `merchantId`'s (another merchant's reads as absent, so a route
 * answers 404 for both); without `merchantId`, whoever's (the public page).
 */
export async function findSubscription(
  sequelize: Sequelize,
  id: string,
  merchantId?: string,
): Promise<SubscriptionRow | null> {
  const rows = await sequelize.query<SubscriptionDbRow>(
    `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions
     WHERE id = :id ${merchantId !== undefined ? 'AND merchant_id = :merchantId' : ''}`,
    { replacements: { id, merchantId: merchantId ?? null }, type: QueryTypes.SELECT },
  );
  return rows[0] ? toRow(rows[0]) : null;
}

/**
 * One page of a merchant's subscriptions, newest first by (created_at, id). `after` is the last
 * id of the previous page, compared in SQL (microsecond timestamps), so rows created meanwhile land
 * before page one and never shift later pages. Asks for `limit` rows: ask one more to know if
 * there is a next page.
 */
export async function listSubscriptions(
  sequelize: Sequelize,
  q: { merchantId: string; after: string | null; status?: SubscriptionState; limit: number },
): Promise<SubscriptionRow[]> {
  const rows = await sequelize.query<SubscriptionDbRow>(
    `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions
     WHERE merchant_id = :merchantId
       ${q.after ? 'AND (created_at, id) < (SELECT created_at, id FROM subscriptions WHERE id = :after)' : ''}
       ${q.status !== undefined ? 'AND status = :status' : ''}
     ORDER BY created_at DESC, id DESC
     LIMIT :limit`,
    {
      replacements: { merchantId: q.merchantId, after: q.after, status: q.status ?? null, limit: q.limit },
      type: QueryTypes.SELECT,
    },
  );
  return rows.map(toRow);
}

interface CycleDbRow {
  subscription_id: string;
  cycle: number;
  txid: string | null;
  charge_id: string;
  due_date: string;
  settlement_date: string;
  status: CycleRow['status'];
  retries: number;
  failure_reason: string | null;
  rejection_code: string | null;
  paid_at: Date | null;
}

/** The latest cycle issued of each of these subscriptions (absent: none issued yet), by subscription id. */
export async function currentCycles(sequelize: Sequelize, subscriptionIds: string[]): Promise<Map<string, CycleRow>> {
  if (subscriptionIds.length === 0) return new Map();
  const rows = await sequelize.query<CycleDbRow>(
    `SELECT DISTINCT ON (subscription_id) subscription_id, cycle, txid, charge_id,
       to_char(due_date, 'YYYY-MM-DD') AS due_date, to_char(settlement_date, 'YYYY-MM-DD') AS settlement_date,
       status, retries, failure_reason, rejection_code, paid_at
     FROM subscription_cycles
     WHERE subscription_id IN (:subscriptionIds)
     ORDER BY subscription_id, cycle DESC`,
    { replacements: { subscriptionIds }, type: QueryTypes.SELECT },
  );
  return new Map(
    rows.map((r) => [
      r.subscription_id,
      {
        cycle: r.cycle,
        txid: r.txid,
        chargeId: r.charge_id,
        dueDate: r.due_date,
        settlementDate: r.settlement_date,
        status: r.status,
        retries: r.retries,
        failureReason: r.failure_reason,
        rejectionCode: r.rejection_code,
        paidAt: r.paid_at,
      },
    ]),
  );
}

/** The latest cycle issued of one subscription, or null before the first. */
export async function currentCycle(sequelize: Sequelize, subscriptionId: string): Promise<CycleRow | null> {
  return (await currentCycles(sequelize, [subscriptionId])).get(subscriptionId) ?? null;
}

/** What the hosted page shows beside the subscription: its course's title and its merchant's name and branding. */
export interface SubscriptionPageExtras {
  courseTitle: string;
  merchantName: string;
  logoUrl: string | null;
  brandColor: string | null;
}

export async function pageExtrasOf(
  sequelize: Sequelize,
  subscriptionId: string,
): Promise<SubscriptionPageExtras | null> {
  const rows = await sequelize.query<{
    course_title: string;
    merchant_name: string;
    brand_logo_url: string | null;
    brand_color: string | null;
  }>(
    `SELECT co.title AS course_title, m.name AS merchant_name, m.brand_logo_url, m.brand_color
       FROM subscriptions s
       JOIN courses co ON co.id = s.course_id
       JOIN merchants m ON m.id = s.merchant_id
      WHERE s.id = :subscriptionId`,
    { replacements: { subscriptionId }, type: QueryTypes.SELECT },
  );
  const r = rows[0];
  return r
    ? {
        courseTitle: r.course_title,
        merchantName: r.merchant_name,
        logoUrl: r.brand_logo_url,
        brandColor: r.brand_color,
      }
    : null;
}

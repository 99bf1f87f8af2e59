/**
 * Reads of subscriptions and their cycles, for the API (routes and the hosted page). SELECT only:
 * the subscription's workflow is the one writer (subscriptionStore.ts). Rows come back in the
 * merchant's view's shapes (core/subscriptions/view.ts), so the API presents them as they are.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import type { SubscriptionState } from '../../core/subscriptions/states';
import type { CycleRow, SubscriptionRow } from '../../core/subscriptions/view';
import {
  CYCLE_COLUMNS,
  SUBSCRIPTION_COLUMNS,
  cycleOf,
  subscriptionOf,
  type CycleRecord,
  type SubscriptionRecord,
} from './rows';

/**
 * The subscription, when it is `merchantId`'s (another merchant's reads as absent, so a route
 * answers 404 for both); without `merchantId`, whoever's (the public page).
 */
export async function findSubscription(
  sequelize: Sequelize,
  id: string,
  merchantId?: string,
): Promise<SubscriptionRow | null> {
  const rows = await sequelize.query<SubscriptionRecord>(
    `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions
     WHERE id = :id ${merchantId !== undefined ? 'AND merchant_id = :merchantId' : ''}`,
    { replacements: { id, merchantId: merchantId ?? null }, type: QueryTypes.SELECT },
  );
  return rows[0] ? subscriptionOf(rows[0]) : null;
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
  const rows = await sequelize.query<SubscriptionRecord>(
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
  return rows.map(subscriptionOf);
}

/** The latest cycle issued of each of these subscriptions (absent: none issued yet), by subscription id. */
export async function currentCycles(sequelize: Sequelize, subscriptionIds: string[]): Promise<Map<string, CycleRow>> {
  if (subscriptionIds.length === 0) return new Map();
  const rows = await sequelize.query<CycleRecord>(
    `SELECT DISTINCT ON (subscription_id) ${CYCLE_COLUMNS}
     FROM subscription_cycles
     WHERE subscription_id IN (:subscriptionIds)
     ORDER BY subscription_id, cycle DESC`,
    { replacements: { subscriptionIds }, type: QueryTypes.SELECT },
  );
  return new Map(rows.map((r) => [r.subscription_id, cycleOf(r)]));
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

/**
 * The courses tables: courses, course_prices, course_modules and course_lessons. Their one
 * writer and the way to read them.
 */
import { QueryTypes, type Sequelize } from 'sequelize';

/** A course price as a checkout needs it, with its course's state and title. */
export interface CheckoutPrice {
  id: string;
  merchantId: string;
  courseId: string;
  amountCents: number;
  type: string;
  active: boolean;
  courseStatus: string;
  courseTitle: string;
}

/** The prices with these ids (any merchant's: the caller checks ownership), by lower-cased id. */
export async function pricesForCheckout(sequelize: Sequelize, priceIds: string[]): Promise<Map<string, CheckoutPrice>> {
  const rows = await sequelize.query<{
    id: string;
    merchant_id: string;
    course_id: string;
    amount_cents: string;
    type: string;
    active: boolean;
    course_status: string;
    course_title: string;
  }>(
    `SELECT p.id, p.merchant_id, p.course_id, p.amount_cents, p.type, p.active, c.status AS course_status, c.title AS course_title
     FROM course_prices p JOIN courses c ON c.id = p.course_id
     WHERE p.id IN (:priceIds)`,
    { replacements: { priceIds: [...new Set(priceIds.map((id) => id.toLowerCase()))] }, type: QueryTypes.SELECT },
  );
  return new Map(
    rows.map((r) => [
      r.id,
      {
        id: r.id,
        merchantId: r.merchant_id,
        courseId: r.course_id,
        amountCents: Number(r.amount_cents),
        type: r.type,
        active: r.active,
        courseStatus: r.course_status,
        courseTitle: r.course_title,
      },
    ]),
  );
}

/**
 * Test-only: subscription rows written with SQL, as the subscription's workflow records them
 * (db/subscriptions/subscriptionStore.ts is its one writer), so the routes' reads, lists, refusals
 * and the hosted page can be tested without the workflow. A test that needs the workflow itself
 * creates through POST /subscriptions.
 */
import crypto from 'node:crypto';
import type { Sequelize } from 'sequelize';
import { insertCourse, insertPrice } from './checkouts';

export interface InsertedSubscription {
  id: string;
  courseId: string;
  priceId: string;
}

export interface SubscriptionFixture {
  status?: string;
  journey?: 'JOURNEY_1' | 'JOURNEY_2' | 'JOURNEY_3';
  interval?: string;
  retryPolicy?: string;
  amountCents?: number;
  firstDueDate?: string;
  qrCopyPaste?: string | null;
  idRec?: string | null;
  courseTitle?: string;
  /** An existing course and price of the merchant; default a new PUBLISHED course with a monthly SUBSCRIPTION price. */
  courseId?: string;
  priceId?: string;
  createdAt?: Date;
  externalId?: string | null;
}

/** A subscription of `merchantId`, AWAITING_AUTHORISATION on journey 3 with a QR unless told. */
export async function insertSubscription(
  sequelize: Sequelize,
  merchantId: string,
  o: SubscriptionFixture = {},
): Promise<InsertedSubscription> {
  const courseId = o.courseId ?? (await insertCourse(sequelize, merchantId, { title: o.courseTitle }));
  const priceId =
    o.priceId ??
    (await insertPrice(sequelize, merchantId, courseId, {
      type: 'SUBSCRIPTION',
      amountCents: o.amountCents ?? 2_990,
    }));
  const id = crypto.randomUUID();
  await sequelize.query(
    `INSERT INTO subscriptions (id, merchant_id, course_id, price_id, status, journey, interval, retry_policy,
       amount_cents, first_due_date, payer_name, payer_document, id_rec, qr_copy_paste, external_id, metadata,
       return_url, created_at, updated_at)
     VALUES (:id, :merchantId, :courseId, :priceId, :status, :journey, :interval, :retryPolicy, :amountCents,
       :firstDueDate, 'Bia Souza', '52998224725', :idRec, :qr, :externalId, '{"pedido":"7"}',
       'https://loja.example.com/voltar', :createdAt, :createdAt)`,
    {
      replacements: {
        id,
        merchantId,
        courseId,
        priceId,
        status: o.status ?? 'AWAITING_AUTHORISATION',
        journey: o.journey ?? 'JOURNEY_3',
        interval: o.interval ?? 'MONTHLY',
        retryPolicy: o.retryPolicy ?? 'PERMITE_3R_7D',
        amountCents: o.amountCents ?? 2_990,
        firstDueDate: o.firstDueDate ?? '2026-12-10',
        idRec: o.idRec === undefined ? `RR1234567820261201${id.replace(/-/g, '').slice(0, 11)}` : o.idRec,
        qr:
          o.qrCopyPaste === undefined
            ? '00020101021226990014br.gov.bcb.pix2577pix.example.com/rec/abc5204000053039865802BR5909Loja Test6009Sao Paulo6304ABCD'
            : o.qrCopyPaste,
        externalId: o.externalId ?? null,
        createdAt: o.createdAt ?? new Date(),
      },
    },
  );
  return { id, courseId, priceId };
}

/** Moves a subscription to `status`, as the workflow's transitions do. */
export async function setSubscriptionStatus(sequelize: Sequelize, id: string, status: string): Promise<void> {
  await sequelize.query(`UPDATE subscriptions SET status = :status, updated_at = now() WHERE id = :id`, {
    replacements: { id, status },
  });
}

/**
 * Fixtures for checkout tests: courses and prices inserted with SQL (the course
 * routes are another helper's), a merchant owned by a signed-in user *and* holding a client
 * credential (P0 routes use the credential, refunds and sessions the user), and P0 calls.
 */
import crypto from 'node:crypto';
import type { Sequelize } from 'sequelize';
import { createApiCredential, type MerchantCredentials } from '../../db/identity/merchantAdmin';
import type { AppClient } from './appClient';
import type { StackClient } from './integrationStack';
import { signedInMerchant } from './signedIn';

export async function insertCourse(
  sequelize: Sequelize,
  merchantId: string,
  o: { title?: string; status?: 'DRAFT' | 'PUBLISHED' | 'ARCHIVED' } = {},
): Promise<string> {
  const id = crypto.randomUUID();
  await sequelize.query(
    `INSERT INTO courses (id, merchant_id, title, description, status, access_type, published_at) VALUES (:id, :merchantId, :title, 'Curso de teste', :status, 'LIFETIME', now())`,
    { replacements: { id, merchantId, title: o.title ?? `Curso ${id.slice(0, 8)}`, status: o.status ?? 'PUBLISHED' } },
  );
  return id;
}

export async function insertPrice(
  sequelize: Sequelize,
  merchantId: string,
  courseId: string,
  o: {
    amountCents?: number;
    type?: 'ONE_TIME' | 'SUBSCRIPTION' | 'MULTIPLE_PAYMENTS';
    active?: boolean;
    interval?: 'WEEKLY' | 'MONTHLY' | 'QUARTERLY' | 'SEMIANNUAL' | 'ANNUAL';
    retryPolicy?: 'NAO_PERMITE' | 'PERMITE_3R_7D';
  } = {},
): Promise<string> {
  const id = crypto.randomUUID();
  const type = o.type ?? 'ONE_TIME';
  await sequelize.query(
    `INSERT INTO course_prices (id, course_id, merchant_id, amount_cents, type, active, interval, retry_policy)
     VALUES (:id, :courseId, :merchantId, :amountCents, :type, :active, :interval, :retryPolicy)`,
    {
      replacements: {
        id,
        courseId,
        merchantId,
        amountCents: o.amountCents ?? 4_990,
        type,
        active: o.active ?? true,
        // A SUBSCRIPTION price carries its period and retry policy (migration 0045); the others none.
        interval: type === 'SUBSCRIPTION' ? (o.interval ?? 'MONTHLY') : null,
        retryPolicy: type === 'SUBSCRIPTION' ? (o.retryPolicy ?? 'PERMITE_3R_7D') : null,
      },
    },
  );
  return id;
}

/** A published course with one active ONE_TIME price. */
export async function sellableCourse(sequelize: Sequelize, merchantId: string, amountCents = 4_990, title?: string) {
  const courseId = await insertCourse(sequelize, merchantId, { title });
  const priceId = await insertPrice(sequelize, merchantId, courseId, { amountCents });
  return { courseId, priceId };
}

export interface Producer {
  client: AppClient;
  merchantId: string;
  creds: MerchantCredentials;
}

/** A signed-in owner of a new merchant, plus a credential for it with `scopes` (default: checkout read + write). */
export async function producer(stack: StackClient, scopes = ['checkout:read', 'checkout:write']): Promise<Producer> {
  const { client, merchantId } = await signedInMerchant(stack, { emailPrefix: 'producer', name: 'Escola Teste' });
  const issued = await createApiCredential({ merchantId, scopes, name: 'checkout tests' }, stack.encryptionKey);
  return {
    client,
    merchantId,
    creds: { merchantId: issued.merchantId, clientId: issued.clientId, clientSecret: issued.clientSecret },
  };
}

export function checkoutBody(items: { id: string; quantity: number }[], extra: Record<string, unknown> = {}) {
  return {
    items,
    frequency: 'ONE_TIME',
    returnUrl: 'https://loja.example.com/voltar',
    completionUrl: 'https://loja.example.com/obrigado',
    externalId: `pedido-${crypto.randomUUID().slice(0, 8)}`,
    metadata: { pedido: '1001' },
    ...extra,
  };
}

export const idemKey = () => ({ 'Idempotency-Key': `chk-${crypto.randomUUID()}` });

export async function postCheckout(
  stack: StackClient,
  creds: MerchantCredentials,
  body: unknown,
  headers: Record<string, string> = idemKey(),
) {
  return stack.api('POST', '/v1/checkouts', { creds, body, headers });
}

/** The charge behind a checkout (`bill_<uuid>` or the UUID). */
export async function chargeOf(sequelize: Sequelize, checkoutId: string): Promise<string> {
  const [rows] = (await sequelize.query(`SELECT charge_id FROM checkouts WHERE id = :id`, {
    replacements: { id: checkoutId.replace(/^bill_/, '') },
  })) as [Array<{ charge_id: string }>, unknown];
  if (!rows[0]) throw new Error(`no checkout ${checkoutId}`);
  return rows[0].charge_id;
}

export async function enrolmentsOf(sequelize: Sequelize, checkoutId: string) {
  const [rows] = (await sequelize.query(
    `SELECT course_id, status, revoked_reason, student_name FROM enrolments WHERE checkout_id = :id ORDER BY course_id`,
    {
      replacements: { id: checkoutId.replace(/^bill_/, '') },
    },
  )) as [
    Array<{ course_id: string; status: string; revoked_reason: string | null; student_name: string | null }>,
    unknown,
  ];
  return rows;
}

/**
 * The dashboard's read model. `dashboard_daily` (migration 0022) and `dashboard_payer_months`
 * (0047) are rollups the charge and refund rows maintain by trigger in their own transaction, so
 * totals and top payers cost a few rows per day or month whatever the number of charges; the other reads here are the dashboard's own views over charges, refunds,
 * webhook deliveries and endpoints and provider events, by (merchant, time) indexes. Read-only:
 * nothing here writes, and every row comes out camelCase.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import { cutPeriod } from './periodMonths';

export const TZ = 'America/Sao_Paulo';
/** A delivery that gave up, or is still retrying after a failed attempt (a success ends it SUCCEEDED). */
const FAILING = `(x.status = 'FAILED' OR (x.status = 'PENDING' AND x.attempts > 0))`;
const n = (v: unknown): number => Number(v ?? 0);

function select<T extends object>(sequelize: Sequelize, sql: string, replacements: Record<string, unknown>) {
  return sequelize.query<T>(sql, { replacements, type: QueryTypes.SELECT });
}

export interface RollupTotals {
  created: number;
  failed: number;
  paid: number;
  paidCents: number;
  feeCents: number;
  refunds: number;
  refundedCents: number;
}

/** Sums of the rollup per method over [from, to] (all time without bounds). */
export async function rollup(
  sequelize: Sequelize,
  merchantId: string,
  from?: string,
  to?: string,
): Promise<Map<string, RollupTotals>> {
  const rows = await select<Record<string, string>>(
    sequelize,
    `SELECT method, SUM(created_count) AS created, SUM(failed_count) AS failed, SUM(paid_count) AS paid, SUM(paid_cents) AS paid_cents,
            SUM(fee_cents) AS fee_cents, SUM(refund_count) AS refunds, SUM(refunded_cents) AS refunded_cents
       FROM dashboard_daily WHERE merchant_id = :merchantId ${from ? 'AND day BETWEEN :from AND :to' : ''} GROUP BY method`,
    { merchantId, from, to },
  );
  return new Map(
    rows.map((r) => [
      r.method,
      {
        created: n(r.created),
        failed: n(r.failed),
        paid: n(r.paid),
        paidCents: n(r.paid_cents),
        feeCents: n(r.fee_cents),
        refunds: n(r.refunds),
        refundedCents: n(r.refunded_cents),
      },
    ]),
  );
}

/** Today and the day `back` days before it, as America/Sao_Paulo calendar days ('YYYY-MM-DD'). */
export async function daysBack(sequelize: Sequelize, back: number): Promise<{ from: string; to: string }> {
  const [row] = await select<{ from: string; to: string }>(
    sequelize,
    `SELECT to_char(today - CAST(:back AS int), 'YYYY-MM-DD') AS "from", to_char(today, 'YYYY-MM-DD') AS "to" FROM (SELECT (now() AT TIME ZONE '${TZ}')::date AS today) t`,
    { back },
  );
  return row;
}

/** Today as an America/Sao_Paulo calendar day ('YYYY-MM-DD'). */
export async function today(sequelize: Sequelize): Promise<string> {
  const [{ day }] = await select<{ day: string }>(
    sequelize,
    `SELECT to_char((now() AT TIME ZONE '${TZ}')::date, 'YYYY-MM-DD') AS day`,
    {},
  );
  return day;
}

/** How many of the merchant's charges had a refund succeed. */
export async function refundedCharges(sequelize: Sequelize, merchantId: string): Promise<number> {
  const [row] = await select<{ c: string }>(
    sequelize,
    `SELECT COUNT(DISTINCT charge_id) AS c FROM refunds WHERE merchant_id = :merchantId AND status = 'SUCCEEDED'`,
    { merchantId },
  );
  return n(row.c);
}

/** How many refunds the merchant has, in any status. */
export async function refundCount(sequelize: Sequelize, merchantId: string): Promise<number> {
  const [row] = await select<{ c: string }>(sequelize, `SELECT COUNT(*) AS c FROM refunds WHERE merchant_id = :m`, {
    m: merchantId,
  });
  return n(row.c);
}

/**
 * The merchant's top payers over [from, to] by amount paid, each with the name and document of their latest payment.
 * Whole months come from the payer rollup (dashboard_payer_months, migration 0047: a few thousand
 * rows a month) and only the days around them from the narrow index charges_merchant_payers
 * (migration 0022), which a year of the largest merchant's payments made ~800,000 entries to group.
 * Both count the same rows (PAID, with a payer_key and a paid_at) by the same São Paulo days.
 */
export async function topPayers(
  sequelize: Sequelize,
  q: { merchantId: string; from: string; to: string; top: number },
): Promise<{ name: string | null; document: string | null; payments: number; amountCents: number }[]> {
  const cut = cutPeriod(q.from, q.to);
  const parts = cut.days.map(
    (_, i) =>
      `SELECT payer_key, 1 AS payments, gross_paid_cents AS amount FROM charges
        WHERE merchant_id = :merchantId AND status = 'PAID' AND payer_key IS NOT NULL
          AND paid_at >= CAST(:from${i} AS date)::timestamp AT TIME ZONE '${TZ}' AND paid_at < CAST(:until${i} AS date)::timestamp AT TIME ZONE '${TZ}'`,
  );
  if (cut.months)
    parts.push(`SELECT payer_key, payments, amount_cents AS amount FROM dashboard_payer_months
                 WHERE merchant_id = :merchantId AND month >= CAST(:monthsFrom AS date) AND month < CAST(:monthsUntil AS date)`);
  if (parts.length === 0) return [];
  const replacements: Record<string, unknown> = {
    merchantId: q.merchantId,
    top: q.top,
    monthsFrom: cut.months?.from,
    monthsUntil: cut.months?.until,
  };
  cut.days.forEach((d, i) => Object.assign(replacements, { [`from${i}`]: d.from, [`until${i}`]: d.until }));
  // Rollup rows a change brought down to zero payments stay: a payer with none in the period is none.
  const payers = await select<{
    name: string | null;
    document: string | null;
    payments: string;
    amount: string;
  }>(
    sequelize,
    `WITH counted AS (${parts.join(' UNION ALL ')}),
     top AS (
       SELECT payer_key, SUM(payments) AS payments, SUM(amount) AS amount FROM counted
        GROUP BY payer_key HAVING SUM(payments) > 0 ORDER BY amount DESC, payments DESC, payer_key LIMIT :top)
     SELECT top.payments, top.amount, p.name, p.document FROM top
       CROSS JOIN LATERAL (SELECT c.payer_snapshot->>'name' AS name, NULLIF(c.payer_snapshot->>'document', '') AS document FROM charges c
                            WHERE c.merchant_id = :merchantId AND c.status = 'PAID' AND c.payer_key = top.payer_key ORDER BY c.paid_at DESC LIMIT 1) p
      ORDER BY top.amount DESC, top.payments DESC, top.payer_key`,
    replacements,
  );
  return payers.map((p) => ({ name: p.name, document: p.document, payments: n(p.payments), amountCents: n(p.amount) }));
}

/** Daily figures over [from, to], every day present (zeros where nothing moved). */
export async function daily(sequelize: Sequelize, merchantId: string, from: string, to: string) {
  const rows = await select<Record<string, string>>(
    sequelize,
    `SELECT to_char(g.day, 'YYYY-MM-DD') AS day, COALESCE(SUM(d.paid_cents), 0) AS sales, COALESCE(SUM(d.fee_cents), 0) AS fees,
            COALESCE(SUM(d.refunded_cents), 0) AS refunded, COALESCE(SUM(d.paid_count), 0) AS payments
       FROM generate_series(CAST(:from AS date), CAST(:to AS date), interval '1 day') AS g(day)
       LEFT JOIN dashboard_daily d ON d.merchant_id = :merchantId AND d.day = g.day::date
      GROUP BY g.day ORDER BY g.day`,
    { merchantId, from, to },
  );
  return rows.map((r) => ({
    day: r.day,
    salesCents: n(r.sales),
    feesCents: n(r.fees),
    refundedCents: n(r.refunded),
    payments: n(r.payments),
  }));
}

/**
 * Events of the merchant's charges and refunds, newest first: each branch reads its own index
 * newest first and stops at offset + limit, so a page costs the same at any volume.
 */
export async function interactions(sequelize: Sequelize, merchantId: string, limit: number, offset: number) {
  const rows = await select<{
    type: string;
    at: Date;
    charge_id: string;
    refund_id: string | null;
    method: string;
    amount: string;
  }>(
    sequelize,
    `SELECT * FROM (
       (SELECT 'charge.created' AS type, created_at AS at, id AS charge_id, NULL::uuid AS refund_id, method, amount_cents AS amount
          FROM charges WHERE merchant_id = :m ORDER BY created_at DESC, id DESC LIMIT :k)
       UNION ALL
       (SELECT 'charge.paid', paid_at, id, NULL, method, COALESCE(boleto_paid_amount_cents, amount_cents)
          FROM charges WHERE merchant_id = :m AND status = 'PAID' AND paid_at IS NOT NULL ORDER BY paid_at DESC LIMIT :k)
       UNION ALL
       (SELECT 'charge.expired', expired_at, id, NULL, method, amount_cents
          FROM charges WHERE merchant_id = :m AND status = 'EXPIRED' AND expired_at IS NOT NULL ORDER BY expired_at DESC LIMIT :k)
       UNION ALL
       (SELECT 'charge.canceled', cancelled_at, id, NULL, method, amount_cents
          FROM charges WHERE merchant_id = :m AND status = 'CANCELLED' AND cancelled_at IS NOT NULL ORDER BY cancelled_at DESC LIMIT :k)
       UNION ALL
       (SELECT 'refund.' || lower(r.status), COALESCE(r.settled_at, r.released_at, r.created_at), r.charge_id, r.id, c.method, r.amount_cents
          FROM refunds r JOIN charges c ON c.id = r.charge_id WHERE r.merchant_id = :m ORDER BY r.created_at DESC LIMIT :k)
     ) e ORDER BY at DESC, charge_id DESC, type DESC LIMIT :limit OFFSET :offset`,
    { m: merchantId, k: limit + offset, limit, offset },
  );
  return rows.map((r) => ({
    type: r.type,
    at: new Date(r.at),
    chargeId: r.charge_id,
    refundId: r.refund_id,
    method: r.method,
    amountCents: n(r.amount),
  }));
}

export interface TransactionFilter {
  merchantId: string;
  /** A charges.status (CANCELLED, not the application API's CANCELED). */
  status?: string;
  method?: string;
  /** America/Sao_Paulo calendar days, inclusive. */
  from?: string;
  to?: string;
  limit: number;
  offset: number;
}

/**
 * The total of a list filtered by method and days only, from the rollup: created_count counts
 * every charge by its São Paulo creation day and method (migration 0022's triggers), the very
 * days and method the list filters on, so the sum over a few hundred rollup rows equals the
 * count of the rows themselves (which was an index scan of every one of the merchant's charges:
 * 168 ms for 1.3 million). By status the rollup has no count by creation day: counted from charges.
 */
function rollupCount(q: TransactionFilter): string {
  const where = ['d.merchant_id = :m'];
  if (q.method) where.push('d.method = :method');
  if (q.from) where.push('d.day >= CAST(:from AS date)');
  if (q.to) where.push('d.day <= CAST(:to AS date)');
  return `SELECT COALESCE(SUM(d.created_count), 0) AS c FROM dashboard_daily d WHERE ${where.join(' AND ')}`;
}

/** One page of the merchant's charges, newest first, each with what its refunds gave back; and the total. */
export async function chargesPage(sequelize: Sequelize, q: TransactionFilter) {
  const where = ['c.merchant_id = :m'];
  if (q.status) where.push('c.status = :status');
  if (q.method) where.push('c.method = :method');
  if (q.from) where.push(`c.created_at >= CAST(:from AS date)::timestamp AT TIME ZONE '${TZ}'`);
  if (q.to) where.push(`c.created_at < (CAST(:to AS date) + 1)::timestamp AT TIME ZONE '${TZ}'`);
  const replacements = {
    m: q.merchantId,
    status: q.status,
    method: q.method,
    from: q.from,
    to: q.to,
    limit: q.limit,
    offset: q.offset,
  };
  const [{ c }] = await select<{ c: string }>(
    sequelize,
    q.status ? `SELECT COUNT(*) AS c FROM charges c WHERE ${where.join(' AND ')}` : rollupCount(q),
    replacements,
  );
  const rows = await select<Record<string, string | Date | null>>(
    sequelize,
    `SELECT c.id, c.status, c.method, c.amount_cents, c.boleto_paid_amount_cents, c.fee_cents, c.boleto_paid_fee_cents, c.description, c.external_ref, c.created_at, c.paid_at,
            (SELECT COALESCE(SUM(r.amount_cents), 0) FROM refunds r WHERE r.charge_id = c.id AND r.status = 'SUCCEEDED') AS refunded
       FROM charges c WHERE ${where.join(' AND ')} ORDER BY c.created_at DESC, c.id DESC LIMIT :limit OFFSET :offset`,
    replacements,
  );
  return {
    total: n(c),
    charges: rows.map((r) => ({
      id: r.id as string,
      status: r.status as string,
      method: r.method as string,
      amountCents: n(r.amount_cents),
      boletoPaidAmountCents: r.boleto_paid_amount_cents === null ? null : n(r.boleto_paid_amount_cents),
      feeCents: n(r.fee_cents),
      boletoPaidFeeCents: r.boleto_paid_fee_cents === null ? null : n(r.boleto_paid_fee_cents),
      refundedCents: n(r.refunded),
      description: (r.description as string | null) ?? null,
      externalRef: (r.external_ref as string | null) ?? null,
      createdAt: new Date(r.created_at as Date),
      paidAt: r.paid_at === null ? null : new Date(r.paid_at as Date),
    })),
  };
}

/** The merchant's webhook traffic over the last 24 hours, its endpoints, and the last provider callback for its charges. */
export async function webhookHealth(sequelize: Sequelize, merchantId: string) {
  const since = `now() - interval '24 hours'`;
  const [d] = await select<Record<string, string>>(
    sequelize,
    `SELECT COUNT(*) FILTER (WHERE status = 'SUCCEEDED') AS delivered, COUNT(*) FILTER (WHERE status = 'FAILED') AS failed,
            COUNT(*) FILTER (WHERE status = 'PENDING') AS pending, COUNT(*) FILTER (WHERE ${FAILING}) AS failing
       FROM webhook_deliveries x WHERE merchant_id = :m AND created_at >= ${since}`,
    { m: merchantId },
  );
  const [e] = await select<Record<string, string>>(
    sequelize,
    `SELECT COUNT(*) FILTER (WHERE active) AS active, COUNT(*) FILTER (WHERE NOT active) AS disabled FROM webhook_endpoints WHERE merchant_id = :m`,
    { m: merchantId },
  );
  const endpoints = await select<{
    id: string;
    url: string;
    active: boolean;
    failed: string;
    last_status_code: number | null;
    last_error: string | null;
    last_at: Date;
  }>(
    sequelize,
    `SELECT w.id, w.url, w.active, COUNT(f.id) AS failed, last.last_status_code, last.last_error, COALESCE(last.at, w.disabled_at, w.updated_at) AS last_at
       FROM webhook_endpoints w
       LEFT JOIN webhook_deliveries f ON f.webhook_id = w.id AND ${FAILING.replace(/\bx\./g, 'f.')} AND f.created_at >= ${since}
       LEFT JOIN LATERAL (SELECT x.last_status_code, x.last_error, COALESCE(x.completed_at, x.updated_at) AS at FROM webhook_deliveries x
                           WHERE x.webhook_id = w.id AND ${FAILING} ORDER BY x.updated_at DESC LIMIT 1) last ON true
      WHERE w.merchant_id = :m
      GROUP BY w.id, w.url, w.active, last.last_status_code, last.last_error, last.at
     HAVING COUNT(f.id) > 0 OR NOT w.active
      ORDER BY COUNT(f.id) DESC, w.id LIMIT 50`,
    { m: merchantId },
  );
  const [callback] = await select<{ type: string; received_at: Date; charge_id: string }>(
    sequelize,
    `SELECT pe.type, pe.received_at, c.id AS charge_id FROM provider_events pe JOIN charges c ON c.provider_charge_id = pe.provider_charge_id
      WHERE c.merchant_id = :m ORDER BY pe.received_at DESC LIMIT 1`,
    { m: merchantId },
  );
  return {
    deliveries: { delivered: n(d.delivered), failed: n(d.failed), pending: n(d.pending), failing: n(d.failing) },
    endpoints: { active: n(e.active), disabled: n(e.disabled) },
    failingEndpoints: endpoints.map((f) => ({
      id: f.id,
      url: f.url,
      active: f.active,
      failedDeliveries: n(f.failed),
      lastStatusCode: f.last_status_code,
      lastError: f.last_error,
      lastFailureAt: new Date(f.last_at),
    })),
    lastCallback: callback
      ? { type: callback.type, receivedAt: new Date(callback.received_at), chargeId: callback.charge_id }
      : null,
  };
}

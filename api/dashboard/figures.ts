/**
 * The dashboard's figures for one merchant, read-only. Totals come from `dashboard_daily`
 * (migration 0022: a rollup the charge and refund rows maintain by trigger in their own
 * transaction), so they cost a few rows per day whatever the number of charges; pages read
 * charges and refunds by (merchant, time) indexes. Membership is checked first (any role): a
 * merchant the user is not a member of answers 404, as one that does not exist.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import { accounts } from '../../core/ledger/accounts';
import { maskDocument } from '../../core/masking';
import { ANY_ROLE, requireRole } from './roles';
import { DASHBOARD_METHODS, PERIODS, type Period, type SummaryQuery, type TransactionsQuery } from './figuresSchema';

const TZ = 'America/Sao_Paulo';
/** A delivery that gave up, or is still retrying after a failed attempt (a success ends it SUCCEEDED). */
const FAILING = `(x.status = 'FAILED' OR (x.status = 'PENDING' AND x.attempts > 0))`;
const n = (v: unknown): number => Number(v ?? 0);
const iso = (v: Date | string | null): string | null => (v == null ? null : new Date(v).toISOString());
const appStatus = (s: string) => (s === 'CANCELLED' ? 'CANCELED' : s) as 'PENDING' | 'PAID' | 'EXPIRED' | 'CANCELED';
const ratio = (a: number, b: number) => (b === 0 ? 0 : Math.round((a / b) * 10_000) / 10_000);
const avg = (sum: number, count: number) => (count === 0 ? 0 : Math.round(sum / count));

interface RollupTotals {
  created: number;
  failed: number;
  paid: number;
  paidCents: number;
  feeCents: number;
  refunds: number;
  refundedCents: number;
}

export class DashboardFigures {
  constructor(private readonly sequelize: Sequelize) {}

  private select<T extends object>(sql: string, replacements: Record<string, unknown>): Promise<T[]> {
    return this.sequelize.query<T>(sql, { replacements, type: QueryTypes.SELECT });
  }

  /** Sums of the rollup per method over [from, to] (all time without bounds). */
  private async rollup(merchantId: string, from?: string, to?: string): Promise<Map<string, RollupTotals>> {
    const rows = await this.select<Record<string, string>>(
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

  private static sum(byMethod: Map<string, RollupTotals>): RollupTotals {
    const t: RollupTotals = { created: 0, failed: 0, paid: 0, paidCents: 0, feeCents: 0, refunds: 0, refundedCents: 0 };
    for (const r of byMethod.values()) for (const k of Object.keys(t) as (keyof RollupTotals)[]) t[k] += r[k];
    return t;
  }

  /** Today and the first day of a period, as America/Sao_Paulo calendar days. */
  private async days(period: Period): Promise<{ from: string; to: string }> {
    const [row] = await this.select<{ from: string; to: string }>(
      `SELECT to_char(today - CAST(:back AS int), 'YYYY-MM-DD') AS "from", to_char(today, 'YYYY-MM-DD') AS "to" FROM (SELECT (now() AT TIME ZONE '${TZ}')::date AS today) t`,
      { back: PERIODS[period] - 1 },
    );
    return row;
  }

  private async refundedCharges(merchantId: string): Promise<number> {
    const [row] = await this.select<{ c: string }>(
      `SELECT COUNT(DISTINCT charge_id) AS c FROM refunds WHERE merchant_id = :merchantId AND status = 'SUCCEEDED'`,
      { merchantId },
    );
    return n(row.c);
  }

  async metrics(userId: string, merchantId: string) {
    await requireRole(userId, merchantId, ANY_ROLE);
    const byMethod = await this.rollup(merchantId);
    const t = DashboardFigures.sum(byMethod);
    return {
      totalSales: t.paidCents,
      totalTransactions: t.created,
      averageTicket: avg(t.paidCents, t.paid),
      pixSales: byMethod.get('PIX')?.paidCents ?? 0,
      cardSales: byMethod.get('CARD')?.paidCents ?? 0,
      boletoSales: byMethod.get('BOLETO')?.paidCents ?? 0,
      approvedPayments: t.paid,
      refundedPayments: await this.refundedCharges(merchantId),
      failedPayments: t.failed,
    };
  }

  async summary(userId: string, q: SummaryQuery) {
    await requireRole(userId, q.merchantId, ANY_ROLE);
    const { from, to } = await this.days(q.period);
    const byMethod = await this.rollup(q.merchantId, from, to);
    const t = DashboardFigures.sum(byMethod);
    // Grouped on the narrow index (migration 0022); name and document from each top payer's latest payment.
    const payers = await this.select<{
      name: string | null;
      document: string | null;
      payments: string;
      amount: string;
    }>(
      `WITH top AS (
         SELECT payer_key, COUNT(*) AS payments, SUM(gross_paid_cents) AS amount FROM charges
          WHERE merchant_id = :merchantId AND status = 'PAID' AND payer_key IS NOT NULL
            AND paid_at >= CAST(:from AS date)::timestamp AT TIME ZONE '${TZ}' AND paid_at < (CAST(:to AS date) + 1)::timestamp AT TIME ZONE '${TZ}'
          GROUP BY payer_key ORDER BY amount DESC, payments DESC, payer_key LIMIT :top)
       SELECT top.payments, top.amount, p.name, p.document FROM top
         CROSS JOIN LATERAL (SELECT c.payer_snapshot->>'name' AS name, NULLIF(c.payer_snapshot->>'document', '') AS document FROM charges c
                              WHERE c.merchant_id = :merchantId AND c.status = 'PAID' AND c.payer_key = top.payer_key ORDER BY c.paid_at DESC LIMIT 1) p
        ORDER BY top.amount DESC, top.payments DESC, top.payer_key`,
      { merchantId: q.merchantId, from, to, top: q.topLimit },
    );
    return {
      merchantId: q.merchantId,
      period: q.period,
      timezone: TZ as typeof TZ,
      from,
      to,
      totals: {
        salesCents: t.paidCents,
        feesCents: t.feeCents,
        refundedCents: t.refundedCents,
        netCents: t.paidCents - t.feeCents - t.refundedCents,
        transactions: t.created,
        approvedPayments: t.paid,
        failedPayments: t.failed,
        refunds: t.refunds,
        averageTicketCents: avg(t.paidCents, t.paid),
        conversionRate: ratio(t.paid, t.created),
      },
      byMethod: DASHBOARD_METHODS.map((method) => ({
        method,
        salesCents: byMethod.get(method)?.paidCents ?? 0,
        payments: byMethod.get(method)?.paid ?? 0,
      })),
      topPayers: payers.map((p) => ({
        name: p.name,
        document: p.document ? maskDocument(p.document) : null,
        payments: n(p.payments),
        amountCents: n(p.amount),
      })),
      recentInteractions: await this.interactionRows(q.merchantId, q.interactionsLimit, 0),
    };
  }

  async stats(userId: string, merchantId: string) {
    await requireRole(userId, merchantId, ANY_ROLE);
    const t = DashboardFigures.sum(await this.rollup(merchantId));
    const [{ day }] = await this.select<{ day: string }>(
      `SELECT to_char((now() AT TIME ZONE '${TZ}')::date, 'YYYY-MM-DD') AS day`,
      {},
    );
    const today = DashboardFigures.sum(await this.rollup(merchantId, day, day));
    const balances = await this.select<{ code: string; balance_cents: string }>(
      `SELECT code, balance_cents FROM ledger_accounts WHERE code IN (:codes)`,
      {
        codes: [
          accounts.merchantAvailable(merchantId),
          accounts.merchantReserved(merchantId),
          accounts.merchantBlocked(merchantId),
        ],
      },
    );
    const bal = (code: string) => n(balances.find((b) => b.code === code)?.balance_cents);
    return {
      merchantId,
      balance: {
        availableCents: bal(accounts.merchantAvailable(merchantId)),
        reservedCents: bal(accounts.merchantReserved(merchantId)),
        blockedCents: bal(accounts.merchantBlocked(merchantId)),
      },
      charges: {
        total: t.created,
        pending: t.created - t.paid - t.failed,
        paid: t.paid,
        failed: t.failed,
        refunded: await this.refundedCharges(merchantId),
      },
      amounts: {
        salesCents: t.paidCents,
        feesCents: t.feeCents,
        refundedCents: t.refundedCents,
        netCents: t.paidCents - t.feeCents - t.refundedCents,
      },
      today: { day, salesCents: today.paidCents, payments: today.paid, transactions: today.created },
    };
  }

  /** Daily figures over [from, to], every day present (zeros where nothing moved). */
  private async daily(merchantId: string, from: string, to: string) {
    const rows = await this.select<Record<string, string>>(
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
      netCents: n(r.sales) - n(r.fees) - n(r.refunded),
      payments: n(r.payments),
    }));
  }

  async revenue(userId: string, merchantId: string, period: Period) {
    await requireRole(userId, merchantId, ANY_ROLE);
    const { from, to } = await this.days(period);
    return { merchantId, timezone: TZ as typeof TZ, from, to, days: await this.daily(merchantId, from, to) };
  }

  /**
   * Events of the merchant's charges and refunds, newest first: each branch reads its own index
   * newest first and stops at offset + limit, so a page costs the same at any volume.
   */
  private async interactionRows(merchantId: string, limit: number, offset: number) {
    const rows = await this.select<{
      type: string;
      at: Date;
      charge_id: string;
      refund_id: string | null;
      method: string;
      amount: string;
    }>(
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
      type: r.type as 'charge.created',
      occurredAt: iso(r.at) as string,
      chargeId: r.charge_id,
      refundId: r.refund_id,
      method: r.method as 'PIX' | 'BOLETO',
      amountCents: n(r.amount),
    }));
  }

  async interactions(userId: string, q: { merchantId: string; limit: number; offset: number }) {
    await requireRole(userId, q.merchantId, ANY_ROLE);
    const t = DashboardFigures.sum(await this.rollup(q.merchantId));
    const [row] = await this.select<{ c: string }>(`SELECT COUNT(*) AS c FROM refunds WHERE merchant_id = :m`, {
      m: q.merchantId,
    });
    // Every charge has its created event, a paid or failed one when it is PAID, EXPIRED or CANCELLED; every refund one.
    const total = t.created + t.paid + t.failed + n(row.c);
    const data = await this.interactionRows(q.merchantId, q.limit, q.offset);
    return { data, pagination: { total, limit: q.limit, offset: q.offset, hasMore: q.offset + data.length < total } };
  }

  async transactions(userId: string, q: TransactionsQuery) {
    await requireRole(userId, q.merchantId, ANY_ROLE);
    const where = ['c.merchant_id = :m'];
    if (q.status) where.push('c.status = :status');
    if (q.method) where.push('c.method = :method');
    if (q.from) where.push(`c.created_at >= CAST(:from AS date)::timestamp AT TIME ZONE '${TZ}'`);
    if (q.to) where.push(`c.created_at < (CAST(:to AS date) + 1)::timestamp AT TIME ZONE '${TZ}'`);
    const replacements = {
      m: q.merchantId,
      status: q.status === 'CANCELED' ? 'CANCELLED' : q.status,
      method: q.method,
      from: q.from,
      to: q.to,
      limit: q.limit,
      offset: q.offset,
    };
    const [{ c }] = await this.select<{ c: string }>(
      `SELECT COUNT(*) AS c FROM charges c WHERE ${where.join(' AND ')}`,
      replacements,
    );
    const rows = await this.select<Record<string, string | Date | null>>(
      `SELECT c.id, c.status, c.method, c.amount_cents, c.boleto_paid_amount_cents, c.fee_cents, c.boleto_paid_fee_cents, c.description, c.external_ref, c.created_at, c.paid_at,
              (SELECT COALESCE(SUM(r.amount_cents), 0) FROM refunds r WHERE r.charge_id = c.id AND r.status = 'SUCCEEDED') AS refunded
         FROM charges c WHERE ${where.join(' AND ')} ORDER BY c.created_at DESC, c.id DESC LIMIT :limit OFFSET :offset`,
      replacements,
    );
    const total = n(c);
    const data = rows.map((r) => {
      const paid = r.status === 'PAID';
      return {
        id: r.id as string,
        status: appStatus(r.status as string),
        method: r.method as 'PIX' | 'BOLETO',
        amountCents: n(r.amount_cents),
        paidAmountCents: paid ? n(r.boleto_paid_amount_cents ?? r.amount_cents) : null,
        feeCents: n(r.boleto_paid_fee_cents ?? r.fee_cents),
        refundedAmountCents: n(r.refunded),
        description: (r.description as string | null) ?? null,
        externalRef: (r.external_ref as string | null) ?? null,
        createdAt: iso(r.created_at as Date) as string,
        paidAt: iso(r.paid_at as Date | null),
      };
    });
    return { data, pagination: { total, limit: q.limit, offset: q.offset, hasMore: q.offset + data.length < total } };
  }

  async health(userId: string, merchantId: string) {
    await requireRole(userId, merchantId, ANY_ROLE);
    const since = `now() - interval '24 hours'`;
    const [d] = await this.select<Record<string, string>>(
      `SELECT COUNT(*) FILTER (WHERE status = 'SUCCEEDED') AS delivered, COUNT(*) FILTER (WHERE status = 'FAILED') AS failed,
              COUNT(*) FILTER (WHERE status = 'PENDING') AS pending, COUNT(*) FILTER (WHERE ${FAILING}) AS failing
         FROM webhook_deliveries x WHERE merchant_id = :m AND created_at >= ${since}`,
      { m: merchantId },
    );
    const [e] = await this.select<Record<string, string>>(
      `SELECT COUNT(*) FILTER (WHERE active) AS active, COUNT(*) FILTER (WHERE NOT active) AS disabled FROM webhook_endpoints WHERE merchant_id = :m`,
      { m: merchantId },
    );
    const endpoints = await this.select<{
      id: string;
      url: string;
      active: boolean;
      failed: string;
      last_status_code: number | null;
      last_error: string | null;
      last_at: Date;
    }>(
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
    const [callback] = await this.select<{ type: string; received_at: Date; charge_id: string }>(
      `SELECT pe.type, pe.received_at, c.id AS charge_id FROM provider_events pe JOIN charges c ON c.provider_charge_id = pe.provider_charge_id
        WHERE c.merchant_id = :m ORDER BY pe.received_at DESC LIMIT 1`,
      { m: merchantId },
    );
    const delivered = n(d.delivered);
    const failed = n(d.failed);
    // Retrying deliveries count against the rate too: an endpoint answering 500 is failing now, not in a day.
    const failing = n(d.failing);
    const successRate = delivered + failing === 0 ? null : ratio(delivered, delivered + failing);
    const status =
      successRate === null
        ? 'NO_TRAFFIC'
        : successRate >= 0.95
          ? 'HEALTHY'
          : successRate >= 0.5
            ? 'DEGRADED'
            : 'FAILING';
    return {
      merchantId,
      status: status as 'HEALTHY',
      webhooks: {
        windowHours: 24 as const,
        delivered,
        failed,
        retrying: failing - failed,
        pending: n(d.pending),
        successRate,
      },
      endpoints: { active: n(e.active), disabled: n(e.disabled) },
      failingEndpoints: endpoints.map((f) => ({
        id: f.id,
        url: f.url,
        active: f.active,
        failedDeliveries: n(f.failed),
        lastStatusCode: f.last_status_code,
        lastError: f.last_error,
        lastFailureAt: iso(f.last_at) as string,
      })),
      lastProviderCallback: callback
        ? { type: callback.type, receivedAt: iso(callback.received_at) as string, chargeId: callback.charge_id }
        : null,
    };
  }
}

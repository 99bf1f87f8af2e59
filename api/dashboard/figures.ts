/**
 * The dashboard's figures for one merchant, read-only. Totals come from `dashboard_daily`
 * (migration 0022: a rollup the charge and refund rows maintain by trigger in their own
 * transaction), so they cost a few rows per day whatever the number of charges; pages read
 * charges and refunds by (merchant, time) indexes (db/dashboard/figureStore.ts). Membership is
 * checked first (any role): a merchant the user is not a member of answers 404, as one that does
 * not exist.
 */
import type { Sequelize } from 'sequelize';
import { merchantBalance, type MerchantBalance } from '../../core/connections/pspBalance';
import { maskDocument } from '../../core/masking';
import { figureStore, type RollupTotals } from '../../db/dashboard';
import { balanceReadingStore, pspConnectionStore } from '../../db/connections';
import { balanceStore } from '../../db/ledger';
import { ANY_ROLE, requireRole } from '../identity/auth/roles';
import { balanceLines } from './balanceLines';
import type { BalanceLinesQuery } from './balanceLinesSchema';
import { DASHBOARD_METHODS, PERIODS, type Period, type SummaryQuery, type TransactionsQuery } from './figuresSchema';

const TZ = figureStore.TZ;
const appStatus = (s: string) => (s === 'CANCELLED' ? 'CANCELED' : s) as 'PENDING' | 'PAID' | 'EXPIRED' | 'CANCELED';
const ratio = (a: number, b: number) => (b === 0 ? 0 : Math.round((a / b) * 10_000) / 10_000);
const avg = (sum: number, count: number) => (count === 0 ? 0 : Math.round(sum / count));

export class DashboardFigures {
  constructor(private readonly sequelize: Sequelize) {}

  /** Sums of the rollup per method over [from, to] (all time without bounds). */
  private rollup(merchantId: string, from?: string, to?: string): Promise<Map<string, RollupTotals>> {
    return figureStore.rollup(this.sequelize, merchantId, from, to);
  }

  private static sum(byMethod: Map<string, RollupTotals>): RollupTotals {
    const t: RollupTotals = { created: 0, failed: 0, paid: 0, paidCents: 0, feeCents: 0, refunds: 0, refundedCents: 0 };
    for (const r of byMethod.values()) for (const k of Object.keys(t) as (keyof RollupTotals)[]) t[k] += r[k];
    return t;
  }

  /** Today and the first day of a period, as America/Sao_Paulo calendar days. */
  private days(period: Period): Promise<{ from: string; to: string }> {
    return figureStore.daysBack(this.sequelize, PERIODS[period] - 1);
  }

  private refundedCharges(merchantId: string): Promise<number> {
    return figureStore.refundedCharges(this.sequelize, merchantId);
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
    const payers = await figureStore.topPayers(this.sequelize, { merchantId: q.merchantId, from, to, top: q.topLimit });
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
        payments: p.payments,
        amountCents: p.amountCents,
      })),
      recentInteractions: await this.interactionRows(q.merchantId, q.interactionsLimit, 0),
    };
  }

  async stats(userId: string, merchantId: string) {
    await requireRole(userId, merchantId, ANY_ROLE);
    const t = DashboardFigures.sum(await this.rollup(merchantId));
    const day = await figureStore.today(this.sequelize);
    const today = DashboardFigures.sum(await this.rollup(merchantId, day, day));
    return {
      merchantId,
      balance: await this.balance(merchantId),
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

  /**
   * The ledger's balances, or for a connected merchant its own account's saldo as the worker last
   * read it (core/connections/pspBalance.ts): the money is at its PSP, the ledger only mirrors it.
   * A merchant whose connection was revoked is shown its last reading (read_at says how old).
   */
  private async balance(merchantId: string): Promise<MerchantBalance> {
    const ledger = await balanceStore.merchantBalances(this.sequelize, merchantId);
    const connection = await pspConnectionStore.findLatestConnection(this.sequelize, merchantId);
    const reading = connection ? await balanceReadingStore.readingOf(this.sequelize, connection.id) : null;
    return merchantBalance(ledger, reading);
  }

  /** Daily figures over [from, to], every day present (zeros where nothing moved). */
  private async daily(merchantId: string, from: string, to: string) {
    const rows = await figureStore.daily(this.sequelize, merchantId, from, to);
    return rows.map((r) => ({
      day: r.day,
      salesCents: r.salesCents,
      feesCents: r.feesCents,
      refundedCents: r.refundedCents,
      netCents: r.salesCents - r.feesCents - r.refundedCents,
      payments: r.payments,
    }));
  }

  async revenue(userId: string, merchantId: string, period: Period) {
    await requireRole(userId, merchantId, ANY_ROLE);
    const { from, to } = await this.days(period);
    return { merchantId, timezone: TZ as typeof TZ, from, to, days: await this.daily(merchantId, from, to) };
  }

  /** Events of the merchant's charges and refunds, newest first. */
  private async interactionRows(merchantId: string, limit: number, offset: number) {
    const rows = await figureStore.interactions(this.sequelize, merchantId, limit, offset);
    return rows.map((r) => ({
      type: r.type as 'charge.created',
      occurredAt: r.at.toISOString(),
      chargeId: r.chargeId,
      refundId: r.refundId,
      method: r.method as 'PIX' | 'BOLETO',
      amountCents: r.amountCents,
    }));
  }

  async interactions(userId: string, q: { merchantId: string; limit: number; offset: number }) {
    await requireRole(userId, q.merchantId, ANY_ROLE);
    const t = DashboardFigures.sum(await this.rollup(q.merchantId));
    const refunds = await figureStore.refundCount(this.sequelize, q.merchantId);
    // Every charge has its created event, a paid or failed one when it is PAID, EXPIRED or CANCELLED; every refund one.
    const total = t.created + t.paid + t.failed + refunds;
    const data = await this.interactionRows(q.merchantId, q.limit, q.offset);
    return { data, pagination: { total, limit: q.limit, offset: q.offset, hasMore: q.offset + data.length < total } };
  }

  async transactions(userId: string, q: TransactionsQuery) {
    await requireRole(userId, q.merchantId, ANY_ROLE);
    const { total, charges } = await figureStore.chargesPage(this.sequelize, {
      merchantId: q.merchantId,
      status: q.status === 'CANCELED' ? 'CANCELLED' : q.status,
      method: q.method,
      from: q.from,
      to: q.to,
      limit: q.limit,
      offset: q.offset,
    });
    const data = charges.map((c) => {
      const paid = c.status === 'PAID';
      return {
        id: c.id,
        status: appStatus(c.status),
        method: c.method as 'PIX' | 'BOLETO',
        amountCents: c.amountCents,
        paidAmountCents: paid ? (c.boletoPaidAmountCents ?? c.amountCents) : null,
        feeCents: c.boletoPaidFeeCents ?? c.feeCents,
        refundedAmountCents: c.refundedCents,
        description: c.description,
        externalRef: c.externalRef,
        createdAt: c.createdAt.toISOString(),
        paidAt: c.paidAt ? c.paidAt.toISOString() : null,
      };
    });
    return { data, pagination: { total, limit: q.limit, offset: q.offset, hasMore: q.offset + data.length < total } };
  }

  /** The ledger lines that explain the merchant's balances (balanceLines.ts). */
  balanceLines(userId: string, q: BalanceLinesQuery) {
    return balanceLines(this.sequelize, userId, q);
  }

  async health(userId: string, merchantId: string) {
    await requireRole(userId, merchantId, ANY_ROLE);
    const {
      deliveries: d,
      endpoints: e,
      failingEndpoints,
      lastCallback: callback,
    } = await figureStore.webhookHealth(this.sequelize, merchantId);
    const delivered = d.delivered;
    const failed = d.failed;
    // Retrying deliveries count against the rate too: an endpoint answering 500 is failing now, not in a day.
    const failing = d.failing;
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
        pending: d.pending,
        successRate,
      },
      endpoints: { active: e.active, disabled: e.disabled },
      failingEndpoints: failingEndpoints.map((f) => ({ ...f, lastFailureAt: f.lastFailureAt.toISOString() })),
      lastProviderCallback: callback
        ? { type: callback.type, receivedAt: callback.receivedAt.toISOString(), chargeId: callback.chargeId }
        : null,
    };
  }
}

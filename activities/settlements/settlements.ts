/**
 * Settlement activities: only the planning of a scheduled run. The money itself moves through
 * the withdrawal activities (reserveWithdrawal writes the settlement row with the reservation).
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import { accounts } from '../../core/ledger/accounts';
import { withdrawalFee } from '../../core/withdrawals/rules';
import { Merchant } from '../../db/models';
import type { SettlementFrequency, SettlementPlan } from '../../workflows/settlements/types';
import { balanceOf } from '../ledger/ledgerWriter';

/** 00:00 in Brasília (UTC−3, no daylight saving since 2019) of the day `at` falls on there. */
export function brasiliaStartOfDay(at: Date): Date {
  const day = new Date(at.getTime() - 3 * 3_600_000).toISOString().slice(0, 10);
  return new Date(`${day}T03:00:00.000Z`);
}

export function createSettlementActivities(deps: { sequelize: Sequelize }) {
  const { sequelize } = deps;

  /** The account's balance from its postings made before `cutoff`. */
  async function balanceAt(code: string, cutoff: Date): Promise<number> {
    const [row] = await sequelize.query<{ sum: string | null }>(
      `SELECT COALESCE(SUM(p.amount_cents), 0) AS sum FROM ledger_postings p JOIN ledger_accounts a ON a.id = p.account_id
       WHERE a.code = :code AND p.created_at < :cutoff`,
      { replacements: { code, cutoff }, type: QueryTypes.SELECT },
    );
    return Number(row?.sum ?? 0);
  }

  /**
   * How much a firing of the merchant's schedule settles. D0: everything available now. D1 and
   * WEEKLY: what was available at the end of the previous Brasília day, never more than is
   * available now (money reserved since then is not settled twice). The fee comes on top, so
   * the amount sent is that balance minus the fee. Below the minimum (or below 1 cent): skip.
   */
  async function planScheduledSettlement(args: { merchantId: string; firedAt: string }): Promise<SettlementPlan> {
    const [config] = await sequelize.query<{ frequency: SettlementFrequency; minimum_amount_cents: string }>(
      `SELECT frequency, minimum_amount_cents FROM settlement_schedules WHERE merchant_id = :merchantId`,
      { replacements: { merchantId: args.merchantId }, type: QueryTypes.SELECT },
    );
    if (!config) return { kind: 'SKIP', reason: 'NO_SCHEDULE', amountCents: 0, minimumAmountCents: 0 };
    const minimumAmountCents = Number(config.minimum_amount_cents);
    const merchant = await Merchant.findByPk(args.merchantId);
    if (!merchant || !merchant.active || merchant.withdrawalsFrozen)
      return { kind: 'SKIP', reason: 'MERCHANT_NOT_SETTLEABLE', amountCents: 0, minimumAmountCents };
    if (!merchant.pixKey) return { kind: 'SKIP', reason: 'NO_PIX_KEY', amountCents: 0, minimumAmountCents };
    const code = accounts.merchantAvailable(merchant.id);
    const available = await balanceOf(sequelize, code);
    const settleable =
      config.frequency === 'D0'
        ? available
        : Math.min(available, await balanceAt(code, brasiliaStartOfDay(new Date(args.firedAt))));
    const amountCents = settleable - withdrawalFee(merchant);
    if (amountCents < Math.max(1, minimumAmountCents))
      return { kind: 'SKIP', reason: 'BELOW_MINIMUM', amountCents: Math.max(0, amountCents), minimumAmountCents };
    return { kind: 'SETTLE', frequency: config.frequency, amountCents, minimumAmountCents };
  }

  return { planScheduledSettlement };
}

export type SettlementActivities = ReturnType<typeof createSettlementActivities>;

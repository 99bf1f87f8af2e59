/**
 * Check 4: every reservation is settled or released once quiet. The open rows (a payout batch
 * CREATED or PROCESSING, its items PENDING or SENDING, a withdrawal or settlement PROCESSING, a
 * refund PROCESSING) are listed, and each merchant's reserved account must hold exactly what its
 * open rows hold, by the same money rules the transfers reserve with (core/ledger/postings.ts):
 * zero everywhere when quiet.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import { accounts } from '../../core/ledger/accounts';
import { payoutItemMoney, refundMoney, withdrawalMoney, type Share } from '../../core/ledger/postings';
import type { RefundShares } from '../../core/refunds/shares';
import type { AuditCheck, Discrepancy } from './types';

interface OpenRow {
  kind: string;
  id: string;
  status: string;
  merchant_id: string;
  amount_cents: string;
  fee_cents: string;
  shares: RefundShares | null;
}

const OPEN_ROWS = `
  SELECT 'payout_batch' AS kind, id::text, status, merchant_id::text, total_amount_cents AS amount_cents,
         total_fee_cents AS fee_cents, NULL::jsonb AS shares
    FROM payout_batches WHERE status IN ('CREATED', 'PROCESSING')
  UNION ALL
  SELECT 'payout_item', id::text, status, merchant_id::text, amount_cents, fee_cents, NULL
    FROM payout_items WHERE status IN ('PENDING', 'SENDING')
  UNION ALL
  SELECT CASE WHEN s.id IS NULL THEN 'withdrawal' ELSE 'settlement' END, w.id::text, w.status, w.merchant_id::text,
         w.amount_cents, w.fee_cents, NULL
    FROM withdrawals w LEFT JOIN settlements s ON s.withdrawal_id = w.id WHERE w.status = 'PROCESSING'
  UNION ALL
  SELECT 'refund', id::text, status, merchant_id::text, amount_cents, 0, shares
    FROM refunds WHERE status = 'PROCESSING'
  ORDER BY 1, 2`;

/** What an open row holds in reserve, per merchant (a batch holds through its items). */
function reservedBy(row: OpenRow): Share[] {
  const money = { merchantId: row.merchant_id, amountCents: Number(row.amount_cents), feeCents: Number(row.fee_cents) };
  if (row.kind === 'payout_item') return payoutItemMoney(money).shares;
  if (row.kind === 'withdrawal' || row.kind === 'settlement') return withdrawalMoney(money).shares;
  if (row.kind === 'refund' && row.shares)
    return refundMoney({ merchantId: row.merchant_id, amountCents: money.amountCents, shares: row.shares }).shares;
  return [];
}

export async function auditReservations(deps: { sequelize: Sequelize }): Promise<AuditCheck> {
  const { sequelize } = deps;
  const open = await sequelize.query<OpenRow>(OPEN_ROWS, { type: QueryTypes.SELECT });
  const discrepancies: Discrepancy[] = open.map((r) => ({
    row: `${r.kind}:${r.id}`,
    problem: `still ${r.status}, holding its reserve`,
  }));

  const expected = new Map<string, number>();
  for (const row of open)
    for (const s of reservedBy(row)) {
      const code = accounts.merchantReserved(s.merchantId);
      expected.set(code, (expected.get(code) ?? 0) + s.cents);
    }
  const reserved = await sequelize.query<{ code: string; balance_cents: string }>(
    `SELECT code, balance_cents FROM ledger_accounts WHERE kind = 'MERCHANT_RESERVED' ORDER BY code`,
    { type: QueryTypes.SELECT },
  );
  const held = new Map(reserved.map((a) => [a.code, Number(a.balance_cents)]));
  for (const code of new Set([...held.keys(), ...expected.keys()])) {
    const balance = held.get(code) ?? 0;
    const owed = expected.get(code) ?? 0;
    if (balance !== owed)
      discrepancies.push({
        row: `ledger_account:${code}`,
        problem: `reserved balance ${balance} cents, but the open rows hold ${owed}`,
      });
  }
  return { check: 'reservations', examined: open.length + reserved.length, discrepancies, notes: [] };
}

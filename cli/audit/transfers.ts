/**
 * Check 3: the provider's sends against our rows. Every transfer the PSP made for us (its
 * statement: Efí's `GET /v2/gn/pix/enviados` with PIX_TRANSFERS_API=efi, and the devoluções,
 * through routedPixProvider getStatement; idEnvio ↔ our id by core/pix/apiPixIds.ts) must be one
 * settled payout item, withdrawal (a settlement is one), or refund of the same amount; a row we
 * settled must have exactly one such transfer; a transfer for a row we show FAILED or released
 * is money out that the merchant got back too.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import type { StatementTransfer } from '../../core/provider';
import type { AuditCheck, AuditOptions, Discrepancy, StatementSource } from './types';

interface OurTransfer {
  kind: 'payout_item' | 'withdrawal' | 'settlement' | 'refund';
  id: string;
  status: string;
  amount_cents: string;
  created_at: Date;
}

/** The status each kind shows once its transfer completed. */
const SETTLED: Record<OurTransfer['kind'], string> = {
  payout_item: 'PAID',
  withdrawal: 'COMPLETED',
  settlement: 'COMPLETED',
  refund: 'SUCCEEDED',
};
/** A payout item still PENDING was never sent; SENDING / PROCESSING is open (check 4's). */
const RELEASED = new Set(['FAILED', 'CANCELLED']);

const ROWS = `
  SELECT 'payout_item' AS kind, id::text, status, amount_cents, created_at FROM payout_items
  UNION ALL
  SELECT CASE WHEN s.id IS NULL THEN 'withdrawal' ELSE 'settlement' END, w.id::text, w.status, w.amount_cents, w.created_at
    FROM withdrawals w LEFT JOIN settlements s ON s.withdrawal_id = w.id
  UNION ALL
  SELECT 'refund', id::text, status, amount_cents, created_at FROM refunds`;

const label = (r: Pick<OurTransfer, 'kind' | 'id'>) => `${r.kind}:${r.id}`;

export async function auditTransfers(
  deps: { sequelize: Sequelize; provider: StatementSource },
  opts: AuditOptions,
): Promise<AuditCheck> {
  const { sequelize, provider } = deps;
  const to = opts.now ?? new Date();
  const [oldest] = await sequelize.query<{ at: Date | null }>(`SELECT min(created_at) AS at FROM (${ROWS}) r`, {
    type: QueryTypes.SELECT,
  });
  const from = opts.since ?? oldest.at;
  if (!from) return { check: 'transfers', examined: 0, discrepancies: [], notes: ['no transfer rows'] };

  const statement = await provider.getStatement({ from: from.toISOString(), to: to.toISOString() });
  const sends = new Map<string, StatementTransfer[]>();
  for (const t of statement.transfers) sends.set(t.reference, [...(sends.get(t.reference) ?? []), t]);
  const references = [...sends.keys()];
  // Ours by id whenever created: a row from before the window may have its send inside it.
  const rows = await sequelize.query<OurTransfer>(
    `SELECT * FROM (${ROWS}) r WHERE r.created_at >= :from OR r.id IN (:references) ORDER BY r.created_at, r.id`,
    { replacements: { from, references: references.length ? references : [''] }, type: QueryTypes.SELECT },
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  const discrepancies: Discrepancy[] = [];

  for (const [reference, transfers] of sends) {
    const row = byId.get(reference);
    const completed = transfers.filter((t) => t.status === 'COMPLETED');
    if (!row) {
      if (completed.length)
        discrepancies.push({
          row: `provider:${reference}`,
          problem: `the provider sent ${cents(completed)} for no row of ours`,
        });
      continue;
    }
    if (completed.length > 1)
      discrepancies.push({ row: label(row), problem: `sent ${completed.length} times (${cents(completed)})` });
    if (completed.length === 0) {
      if (row.status === SETTLED[row.kind])
        discrepancies.push({ row: label(row), problem: `${row.status} but the provider's send failed` });
      continue;
    }
    if (RELEASED.has(row.status))
      discrepancies.push({ row: label(row), problem: `${row.status} (reserve released) but the provider sent it` });
    else if (row.status !== SETTLED[row.kind])
      discrepancies.push({ row: label(row), problem: `${row.status} but the provider sent it` });
    if (completed.some((t) => t.amountCents !== Number(row.amount_cents)))
      discrepancies.push({
        row: label(row),
        problem: `amount ${row.amount_cents} but the provider sent ${cents(completed)}`,
      });
  }
  for (const row of rows) {
    if (row.created_at < from || row.status !== SETTLED[row.kind]) continue;
    if (!(sends.get(row.id) ?? []).some((t) => t.status === 'COMPLETED'))
      discrepancies.push({ row: label(row), problem: `${row.status} with no send at the provider` });
  }
  return {
    check: 'transfers',
    examined: rows.length + statement.transfers.length,
    discrepancies,
    notes: [
      `provider window ${from.toISOString()} .. ${to.toISOString()}: ${statement.transfers.length} sends, ${rows.length} rows of ours`,
    ],
  };
}

const cents = (ts: StatementTransfer[]) => ts.map((t) => `${t.amountCents} cents`).join(', ');

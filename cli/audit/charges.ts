/**
 * Check 1: every PAID charge (Pix or boleto) is credited exactly once, an unpaid one never. A
 * credit is a ledger transaction `charge-paid:<chargeId>` (core/ledger/postings.ts
 * chargePaidEntry), kind CHARGE_PAID: the movement key is unique, so a second credit can only
 * hide under another key of that kind or prefix, which is what is counted here. The payment
 * received (its endToEndId) names one charge at most.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import type { AuditCheck, AuditOptions, Discrepancy } from './types';

/** The credits of charges, by the charge they name (reference_id, or the key's suffix). */
const CREDITS = `
  SELECT t.id, t.movement_key, COALESCE(NULLIF(t.reference_id, ''), substring(t.movement_key FROM 13)) AS charge_id
    FROM ledger_transactions t
   WHERE t.kind = 'CHARGE_PAID' OR t.movement_key LIKE 'charge-paid:%'`;

export async function auditCharges(deps: { sequelize: Sequelize }, opts: AuditOptions): Promise<AuditCheck> {
  const { sequelize } = deps;
  const since = opts.since ?? new Date(0);
  const charges = await sequelize.query<{
    id: string;
    status: string;
    method: string;
    credits: string;
    keys: string[];
  }>(
    `WITH credits AS (${CREDITS})
     SELECT c.id, c.status, c.method, count(cr.id) AS credits, array_remove(array_agg(cr.movement_key), NULL) AS keys
       FROM charges c LEFT JOIN credits cr ON cr.charge_id = c.id::text
      WHERE c.created_at >= :since
      GROUP BY c.id, c.status, c.method
     HAVING (c.status = 'PAID' AND count(cr.id) <> 1) OR (c.status <> 'PAID' AND count(cr.id) > 0)
      ORDER BY c.id`,
    { replacements: { since }, type: QueryTypes.SELECT },
  );
  const discrepancies: Discrepancy[] = charges.map((c) => ({
    row: `charge:${c.id}`,
    problem:
      c.status === 'PAID'
        ? `${c.method} charge PAID with ${c.credits} charge-paid ledger transactions (${c.keys.join(', ') || 'none'}), not 1`
        : `${c.method} charge ${c.status} but credited by ${c.keys.join(', ')}`,
  }));

  const orphans = await sequelize.query<{ id: string; movement_key: string }>(
    `WITH credits AS (${CREDITS})
     SELECT cr.id, cr.movement_key FROM credits cr
      WHERE NOT EXISTS (SELECT 1 FROM charges c WHERE c.id::text = cr.charge_id) ORDER BY cr.id`,
    { type: QueryTypes.SELECT },
  );
  for (const o of orphans)
    discrepancies.push({ row: `ledger_transaction:${o.id}`, problem: `${o.movement_key} credits no charge of ours` });

  // The payment received: one endToEndId per charge, and each credited Pix received names the charge that holds it.
  const sharedPayments = await sequelize.query<{ end_to_end_id: string; charges: string[] }>(
    `SELECT end_to_end_id, array_agg(id::text ORDER BY id) AS charges FROM charges
      WHERE end_to_end_id IS NOT NULL GROUP BY end_to_end_id HAVING count(*) > 1`,
    { type: QueryTypes.SELECT },
  );
  for (const s of sharedPayments)
    discrepancies.push({
      row: s.charges.map((id) => `charge:${id}`).join(' '),
      problem: `one payment (endToEndId ${s.end_to_end_id}) on ${s.charges.length} charges`,
    });

  const [counted] = await sequelize.query<{ n: string; paid: string }>(
    `SELECT count(*) AS n, count(*) FILTER (WHERE status = 'PAID') AS paid FROM charges WHERE created_at >= :since`,
    { replacements: { since }, type: QueryTypes.SELECT },
  );
  const duplicates = await sequelize.query<{ charge_id: string; end_to_end_id: string | null }>(
    `SELECT a.charge_id, a.end_to_end_id FROM payment_alerts a JOIN charges c ON c.id = a.charge_id
      WHERE a.kind = 'DUPLICATE_PAYMENT' AND c.created_at >= :since ORDER BY a.charge_id`,
    { replacements: { since }, type: QueryTypes.SELECT },
  );
  const notes = duplicates.map(
    (d) =>
      `charge:${d.charge_id} was paid a second time by the payer (endToEndId ${d.end_to_end_id ?? '-'}): not credited, to be returned`,
  );
  if (Number(counted.paid) > 0) notes.unshift(`${counted.paid} PAID of ${counted.n} charges`);
  return { check: 'charges', examined: Number(counted.n), discrepancies, notes };
}

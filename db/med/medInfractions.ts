/**
 * The med_infractions row and its public view (GET /med/infractions/{id}, and the payload of
 * every med.infraction.* event), shared by the API and the activities so both show the same.
 */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';

export type MedInfractionStatus = 'OPEN' | 'ACCEPTED' | 'REJECTED';
export type MedDecisionValue = 'ACCEPT' | 'REJECT';

export interface MedInfractionRow {
  id: string;
  provider_infraction_id: string;
  merchant_id: string;
  charge_id: string;
  end_to_end_id: string;
  disputed_cents: string | number;
  blocked_cents: string | number;
  blocked_at: Date | null;
  reason: string;
  status: MedInfractionStatus;
  decision: MedDecisionValue | null;
  justification: string | null;
  decided_by: string | null;
  decided_at: Date | null;
  opened_at: Date;
  deadline_at: Date;
  refund_id: string | null;
  refund_cents: string | number | null;
  refund_status: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface MedInfractionView {
  id: string;
  providerInfractionId: string;
  merchantId: string;
  chargeId: string;
  endToEndId: string;
  disputedAmountCents: number;
  blockedAmountCents: number;
  reason: string;
  status: MedInfractionStatus;
  decision: MedDecisionValue | null;
  justification: string | null;
  decidedBy: string | null;
  decidedAt: string | null;
  openedAt: string;
  deadlineAt: string;
  refundId: string | null;
  refundAmountCents: number | null;
  refundStatus: string | null;
  createdAt: string;
  updatedAt: string;
}

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

export function presentInfraction(r: MedInfractionRow): MedInfractionView {
  return {
    id: r.id,
    providerInfractionId: r.provider_infraction_id,
    merchantId: r.merchant_id,
    chargeId: r.charge_id,
    endToEndId: r.end_to_end_id,
    disputedAmountCents: Number(r.disputed_cents),
    blockedAmountCents: Number(r.blocked_cents),
    reason: r.reason,
    status: r.status,
    decision: r.decision,
    justification: r.justification,
    decidedBy: r.decided_by,
    decidedAt: iso(r.decided_at),
    openedAt: iso(r.opened_at) as string,
    deadlineAt: iso(r.deadline_at) as string,
    refundId: r.refund_id,
    refundAmountCents: r.refund_cents === null ? null : Number(r.refund_cents),
    refundStatus: r.refund_status,
    createdAt: iso(r.created_at) as string,
    updatedAt: iso(r.updated_at) as string,
  };
}

export async function findInfraction(
  sequelize: Sequelize,
  id: string,
  opts: { transaction?: Transaction; lock?: boolean } = {},
): Promise<MedInfractionRow | null> {
  const [row] = await sequelize.query<MedInfractionRow>(
    `SELECT * FROM med_infractions WHERE id = :id${opts.lock ? ' FOR UPDATE' : ''}`,
    {
      replacements: { id },
      type: QueryTypes.SELECT,
      transaction: opts.transaction,
    },
  );
  return row ?? null;
}

/**
 * How long paid charges took to reach the ledger during the run, read afterwards from the
 * database: for each payment the gateway received and passed to its charge's workflow
 * (provider_events SIGNALLED), the time from its arrival to the charge's `charge-paid:` ledger
 * transaction. Per fault: the charges whose payment arrived between the kill and the part's
 * return; their last settlement is when "every signalled charge settled" after that fault.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import type { FaultResult } from './faults';

export interface SignalledPayment {
  chargeId: string;
  receivedAt: number;
  /** undefined: not in the ledger (the audit names it). */
  settledAt?: number;
}

export async function signalledPayments(sequelize: Sequelize, since: Date): Promise<SignalledPayment[]> {
  const rows = await sequelize.query<{ charge_id: string; received_at: Date; settled_at: Date | null }>(
    `SELECT c.id AS charge_id, pe.received_at, t.created_at AS settled_at
       FROM provider_events pe
       JOIN charges c ON c.provider_charge_id = pe.provider_charge_id
       LEFT JOIN ledger_transactions t ON t.movement_key = 'charge-paid:' || c.id
      WHERE pe.outcome = 'SIGNALLED' AND pe.received_at >= :since`,
    { replacements: { since }, type: QueryTypes.SELECT },
  );
  return rows.map((r) => ({
    chargeId: r.charge_id,
    receivedAt: new Date(r.received_at).getTime(),
    settledAt: r.settled_at ? new Date(r.settled_at).getTime() : undefined,
  }));
}

export interface FaultSettlement {
  /** Payments that arrived while the part was down or coming back. */
  payments: number;
  /** From the fault to the last of them in the ledger (undefined: none, or one never settled). */
  settledMs?: number;
  unsettled: number;
}

export function settlementAfter(fault: FaultResult, payments: SignalledPayment[]): FaultSettlement {
  const during = payments.filter((p) => p.receivedAt >= fault.at && p.receivedAt <= fault.backAt);
  const unsettled = during.filter((p) => p.settledAt === undefined).length;
  const last = Math.max(...during.map((p) => p.settledAt ?? -Infinity));
  return {
    payments: during.length,
    settledMs: during.length > 0 && unsettled === 0 ? last - fault.at : undefined,
    unsettled,
  };
}

/** The longest arrival → ledger time of the run, and the charge it belongs to. */
export function longestLag(payments: SignalledPayment[]): { chargeId: string; ms: number } | undefined {
  let worst: { chargeId: string; ms: number } | undefined;
  for (const p of payments)
    if (p.settledAt !== undefined && (!worst || p.settledAt - p.receivedAt > worst.ms))
      worst = { chargeId: p.chargeId, ms: p.settledAt - p.receivedAt };
  return worst;
}

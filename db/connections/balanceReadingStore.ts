/**
 * The psp_balance_readings table (migration 0038): each connected account's last balance reading,
 * written by the worker's reading (activities/connections/balances.ts) and read by the dashboard
 * and a payout's reserve. Its one writer.
 */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';

/** What the PSP said the account held (`saldoCents`) and what the ledger mirror held at the same instant. */
export interface BalanceReading {
  connectionId: string;
  saldoCents: number;
  /** The merchant's available + reserved + blocked at the reading. */
  mirrorCents: number;
  /** Its reserved part then: money out in flight (a send the PSP may already have debited). */
  reservedCents: number;
  readAt: Date;
}

/** Keeps `reading` as the connection's last one, unless a later one is already stored (two workers reading at once). */
export async function recordReading(sequelize: Sequelize, reading: BalanceReading): Promise<void> {
  await sequelize.query(
    `INSERT INTO psp_balance_readings (psp_connection_id, saldo_cents, mirror_cents, reserved_cents, read_at)
     VALUES (:connectionId, :saldoCents, :mirrorCents, :reservedCents, :readAt)
     ON CONFLICT (psp_connection_id) DO UPDATE
       SET saldo_cents = EXCLUDED.saldo_cents, mirror_cents = EXCLUDED.mirror_cents,
           reserved_cents = EXCLUDED.reserved_cents, read_at = EXCLUDED.read_at
     WHERE psp_balance_readings.read_at < EXCLUDED.read_at`,
    { replacements: { ...reading } },
  );
}

/** The connection's last reading; null before the first. */
export async function readingOf(
  sequelize: Sequelize,
  connectionId: string,
  transaction?: Transaction,
): Promise<BalanceReading | null> {
  const [row] = await sequelize.query<{
    saldo_cents: string;
    mirror_cents: string;
    reserved_cents: string;
    read_at: Date;
  }>(
    `SELECT saldo_cents, mirror_cents, reserved_cents, read_at FROM psp_balance_readings
      WHERE psp_connection_id = :connectionId`,
    { replacements: { connectionId }, type: QueryTypes.SELECT, transaction },
  );
  if (!row) return null;
  return {
    connectionId,
    saldoCents: Number(row.saldo_cents),
    mirrorCents: Number(row.mirror_cents),
    reservedCents: Number(row.reserved_cents),
    readAt: new Date(row.read_at),
  };
}

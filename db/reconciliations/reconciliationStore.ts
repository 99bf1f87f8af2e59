/** The reconciliations table (one run over a date range and its report): its one writer and the way to read it. */
import { QueryTypes, type Sequelize } from 'sequelize';
import type { ReconciliationCounts, ReconciliationDifference } from '../../workflows/reconciliations/types';

export type ReconciliationStatus = 'RUNNING' | 'COMPLETED' | 'FAILED';

export interface Reconciliation {
  id: string;
  /** Null: a platform-wide run (every merchant; operators only). */
  merchantId: string | null;
  /**
   * The merchant's own PSP connection whose account this run compared (the connected model);
   * null: the platform's account.
   */
  pspConnectionId: string | null;
  /** 'YYYY-MM-DD' */
  fromDate: string;
  toDate: string;
  status: ReconciliationStatus;
  counts: ReconciliationCounts;
  differences: ReconciliationDifference[];
  failureReason: string | null;
  createdAt: Date;
  completedAt: Date | null;
}

interface Row {
  id: string;
  merchant_id: string | null;
  psp_connection_id: string | null;
  from_date: string;
  to_date: string;
  status: ReconciliationStatus;
  matched_count: number;
  missing_in_ledger_count: number;
  missing_at_provider_count: number;
  amount_mismatch_count: number;
  healed_count: number;
  differences: ReconciliationDifference[];
  failure_reason: string | null;
  created_at: Date;
  completed_at: Date | null;
}

const COLUMNS = `id, merchant_id, psp_connection_id, to_char(from_date, 'YYYY-MM-DD') AS from_date, to_char(to_date, 'YYYY-MM-DD') AS to_date, status,
  matched_count, missing_in_ledger_count, missing_at_provider_count, amount_mismatch_count, healed_count, differences, failure_reason, created_at, completed_at`;

function reconciliationOf(r: Row): Reconciliation {
  return {
    id: r.id,
    merchantId: r.merchant_id,
    pspConnectionId: r.psp_connection_id,
    fromDate: r.from_date,
    toDate: r.to_date,
    status: r.status,
    counts: {
      matched: r.matched_count,
      missingInLedger: r.missing_in_ledger_count,
      missingAtProvider: r.missing_at_provider_count,
      amountMismatch: r.amount_mismatch_count,
      healed: r.healed_count,
    },
    differences: r.differences,
    failureReason: r.failure_reason,
    createdAt: new Date(r.created_at),
    completedAt: r.completed_at ? new Date(r.completed_at) : null,
  };
}

/** A RUNNING run asked for by a user. */
export async function createRun(
  sequelize: Sequelize,
  run: { id: string; merchantId: string | null; from: string; to: string; requestedBy: string },
): Promise<void> {
  await sequelize.query(
    `INSERT INTO reconciliations (id, merchant_id, from_date, to_date, requested_by) VALUES (:id, :merchantId, :from, :to, :userId)`,
    { replacements: { id: run.id, merchantId: run.merchantId, from: run.from, to: run.to, userId: run.requestedBy } },
  );
}

/**
 * The daily run of `day` for the merchant at the platform's account: created once
 * (reconciliations_daily_once); answers its id.
 */
export async function dailyRun(sequelize: Sequelize, merchantId: string, day: string): Promise<string> {
  const [row] = await sequelize.query<{ id: string }>(
    `WITH created AS (
       INSERT INTO reconciliations (id, merchant_id, from_date, to_date, scheduled) VALUES (gen_random_uuid(), :merchantId, :day, :day, TRUE)
       ON CONFLICT (merchant_id, from_date) WHERE scheduled AND psp_connection_id IS NULL DO NOTHING RETURNING id)
     SELECT id FROM created UNION ALL SELECT id FROM reconciliations
     WHERE merchant_id = :merchantId AND from_date = :day AND scheduled AND psp_connection_id IS NULL LIMIT 1`,
    { replacements: { merchantId, day }, type: QueryTypes.SELECT },
  );
  return row.id;
}

/**
 * The daily run of `day` for a merchant's own PSP connection: created once per connection and day
 * (reconciliations_daily_connection_once); answers its id.
 */
export async function dailyConnectionRun(
  sequelize: Sequelize,
  connection: { id: string; merchantId: string },
  day: string,
): Promise<string> {
  const [row] = await sequelize.query<{ id: string }>(
    `WITH created AS (
       INSERT INTO reconciliations (id, merchant_id, psp_connection_id, from_date, to_date, scheduled)
       VALUES (gen_random_uuid(), :merchantId, :connectionId, :day, :day, TRUE)
       ON CONFLICT (psp_connection_id, from_date) WHERE scheduled AND psp_connection_id IS NOT NULL DO NOTHING RETURNING id)
     SELECT id FROM created UNION ALL SELECT id FROM reconciliations
     WHERE psp_connection_id = :connectionId AND from_date = :day AND scheduled LIMIT 1`,
    { replacements: { merchantId: connection.merchantId, connectionId: connection.id, day }, type: QueryTypes.SELECT },
  );
  return row.id;
}

/** A run whose workflow never started: it would stay RUNNING forever, so it says why instead. */
export async function markNotStarted(sequelize: Sequelize, id: string): Promise<void> {
  await sequelize.query(
    `UPDATE reconciliations SET status = 'FAILED', completed_at = now(), failure_reason = 'could not start the workflow' WHERE id = :id`,
    { replacements: { id } },
  );
}

/** Ends a RUNNING run as FAILED (a run already ended is left as it is). */
export async function failRun(sequelize: Sequelize, id: string, reason: string): Promise<void> {
  await sequelize.query(
    `UPDATE reconciliations SET status = 'FAILED', completed_at = now(), failure_reason = :reason WHERE id = :id AND status = 'RUNNING'`,
    {
      replacements: { id, reason: reason.slice(0, 500) },
    },
  );
}

/** Ends a RUNNING run as COMPLETED with its report (a run already ended is left as it is). */
export async function completeRun(
  sequelize: Sequelize,
  id: string,
  report: { counts: ReconciliationCounts; differences: ReconciliationDifference[] },
): Promise<void> {
  await sequelize.query(
    `UPDATE reconciliations SET status = 'COMPLETED', completed_at = now(), matched_count = :matched, missing_in_ledger_count = :missingInLedger,
       missing_at_provider_count = :missingAtProvider, amount_mismatch_count = :amountMismatch, healed_count = :healed, differences = CAST(:differences AS jsonb)
     WHERE id = :id AND status = 'RUNNING'`,
    { replacements: { id, ...report.counts, differences: JSON.stringify(report.differences) } },
  );
}

export async function findRun(sequelize: Sequelize, id: string): Promise<Reconciliation | null> {
  const [row] = await sequelize.query<Row>(`SELECT ${COLUMNS} FROM reconciliations WHERE id = :id`, {
    replacements: { id },
    type: QueryTypes.SELECT,
  });
  return row ? reconciliationOf(row) : null;
}

/** One page of a merchant's runs (merchantId null: the platform-wide runs), newest first, with the total. */
export async function listRuns(
  sequelize: Sequelize,
  merchantId: string | null,
  page: { limit: number; offset: number },
): Promise<{ runs: Reconciliation[]; total: number }> {
  const rows = await sequelize.query<Row & { total: string }>(
    `SELECT ${COLUMNS}, count(*) OVER () AS total FROM reconciliations WHERE merchant_id IS NOT DISTINCT FROM CAST(:merchantId AS uuid)
     ORDER BY created_at DESC, id DESC LIMIT :limit OFFSET :offset`,
    { replacements: { merchantId, limit: page.limit, offset: page.offset }, type: QueryTypes.SELECT },
  );
  const total = rows.length ? Number(rows[0].total) : await countRuns(sequelize, merchantId);
  return { runs: rows.map(reconciliationOf), total };
}

async function countRuns(sequelize: Sequelize, merchantId: string | null): Promise<number> {
  const [row] = await sequelize.query<{ n: string }>(
    `SELECT count(*) AS n FROM reconciliations WHERE merchant_id IS NOT DISTINCT FROM CAST(:merchantId AS uuid)`,
    {
      replacements: { merchantId },
      type: QueryTypes.SELECT,
    },
  );
  return Number(row.n);
}

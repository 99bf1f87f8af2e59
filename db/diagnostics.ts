/**
 * Reads of PostgreSQL itself, not of any table of ours: whether the database answers (health),
 * the slowest statements pg_stat_statements recorded (GET /metrics/perf-db), and which of its
 * refusals are a momentary conflict rather than a bug.
 */
import { DatabaseError, QueryTypes, type Sequelize } from 'sequelize';

/** Resolves when the database answers a trivial query. */
export async function ping(sequelize: Sequelize): Promise<void> {
  await sequelize.query('SELECT 1');
}

export async function hasPgStatStatements(sequelize: Sequelize): Promise<boolean> {
  const [ext] = await sequelize.query<{ installed: boolean }>(
    "SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_stat_statements') AS installed",
    { type: QueryTypes.SELECT },
  );
  return Boolean(ext?.installed);
}

/**
 * The ten statements of this database with the highest mean time. Throws when the extension is
 * installed but not preloaded (PostgreSQL refuses to read the view).
 */
export async function slowestStatements(
  sequelize: Sequelize,
): Promise<{ query: string; calls: number; meanMs: number; totalMs: number }[]> {
  const rows = await sequelize.query<{ query: string; calls: string; mean_ms: number; total_ms: number }>(
    `SELECT query, calls, mean_exec_time AS mean_ms, total_exec_time AS total_ms
       FROM pg_stat_statements
      WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
      ORDER BY mean_exec_time DESC
      LIMIT 10`,
    { type: QueryTypes.SELECT },
  );
  return rows.map((r) => ({
    query: r.query,
    calls: Number(r.calls),
    meanMs: Number(r.mean_ms),
    totalMs: Number(r.total_ms),
  }));
}

/** deadlock_detected and serialization_failure: PostgreSQL rolled the transaction back; the same work may pass again. */
const CONFLICT_SQLSTATES = new Set(['40P01', '40001']);

/** The SQLSTATE of a deadlock or serialization failure the database broke; undefined for any other error. */
export function databaseConflictOf(err: unknown): string | undefined {
  if (!(err instanceof DatabaseError)) return undefined;
  const code = String((err.parent as { code?: unknown } | undefined)?.code ?? '');
  return CONFLICT_SQLSTATES.has(code) ? code : undefined;
}

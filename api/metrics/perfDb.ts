/**
 * GET /metrics/perf-db: the connection pool of this process (sequelize's pool: size, available,
 * using, opening, waiting) and the ten slowest statements by mean time from pg_stat_statements, whose
 * texts PostgreSQL normalises (constants become $1, $2: no values, so no personal data). When the
 * extension is not installed in this database, or not loaded (shared_preload_libraries),
 * `slowestQueries` is null and `note` says so.
 */
import type { Sequelize } from 'sequelize';
import { hasPgStatStatements, slowestStatements } from '../../db/diagnostics';

export interface PoolStats {
  /** Connections counted by the pool: idle + in use + being opened. */
  size: number;
  available: number;
  using: number;
  /** Connections being opened right now (the pool counts them in size before they exist). */
  opening: number;
  waiting: number;
}

export interface SlowQuery {
  query: string;
  calls: number;
  meanMs: number;
  totalMs: number;
}

export interface PerfDbReport {
  pool: PoolStats;
  slowestQueries: SlowQuery[] | null;
  note?: string;
}

const NOT_ENABLED =
  'pg_stat_statements is not enabled: add it to shared_preload_libraries and run CREATE EXTENSION pg_stat_statements in this database to see the slowest queries';

/** Longest query text returned: enough to recognise a statement, not a dump of a huge IN list. */
const MAX_QUERY_CHARS = 2000;

export function poolStats(sequelize: Sequelize): PoolStats {
  const pool = (
    sequelize.connectionManager as unknown as { pool?: Partial<PoolStats> & { write?: Partial<PoolStats> } }
  ).pool;
  // With read replicas sequelize keeps {read, write} pools; the write pool is the one we use.
  const p = pool && typeof pool.size === 'number' ? pool : (pool?.write ?? {});
  const size = p.size ?? 0;
  const available = p.available ?? 0;
  const using = p.using ?? 0;
  return { size, available, using, opening: Math.max(0, size - available - using), waiting: p.waiting ?? 0 };
}

export async function perfDbReport(sequelize: Sequelize): Promise<PerfDbReport> {
  const pool = poolStats(sequelize);
  if (!(await hasPgStatStatements(sequelize))) return { pool, slowestQueries: null, note: NOT_ENABLED };
  try {
    const rows = await slowestStatements(sequelize);
    return {
      pool,
      slowestQueries: rows.map((r) => ({ ...r, query: r.query.slice(0, MAX_QUERY_CHARS) })),
    };
  } catch {
    // Installed but not preloaded: PostgreSQL refuses to read the view.
    return { pool, slowestQueries: null, note: NOT_ENABLED };
  }
}

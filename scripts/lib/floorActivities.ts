/**
 * The webhook floor's one local activity (scripts/lib/benchWorkflows, benchFloorWorkflow): one
 * INSERT of one row into the bench-only table bench_floor_marks, committed on its own (autocommit),
 * as the least a signalled workflow that writes can do. The row's `at` (clock_timestamp() when the
 * INSERT ran, on this host's clock) is when the event was handled; the bench reads it back.
 * The table is the bench's own (created by scripts/lib/floorBench.ts), no migration's.
 */
import type { Pool } from 'pg';

export const FLOOR_TABLE = 'bench_floor_marks';

/** Created by the bench before the floor runs; `id` is the workflow id. */
export const CREATE_FLOOR_TABLE = `CREATE TABLE IF NOT EXISTS ${FLOOR_TABLE} (id text PRIMARY KEY, at timestamptz NOT NULL DEFAULT clock_timestamp())`;

export interface FloorActivities {
  markFloor(id: string): Promise<void>;
}

export function createFloorActivities(pool: Pool): FloorActivities {
  return {
    async markFloor(id) {
      // ON CONFLICT: a retried attempt of an INSERT that committed finds its row already there.
      await pool.query(`INSERT INTO ${FLOOR_TABLE} (id) VALUES ($1) ON CONFLICT (id) DO NOTHING`, [id]);
    },
  };
}

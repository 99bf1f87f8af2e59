/**
 * Which Temporal server a local stack, the test run or the bench uses, and the settings the
 * production engine shares with docker-compose.yml (checked by test/unit/composeFile.test.ts):
 *   - dev: the Temporal CLI's dev server (one process, SQLite, one history shard): the default;
 *   - server: the Temporal server production runs (go.temporal.io/server, built once per machine
 *     by scripts/ensure-tools.sh), on PostgreSQL with SQL visibility and several history shards.
 */
export type TemporalEngine = 'dev' | 'server';

/** History shards of the production engine; fixed for the life of a cluster (docker-compose's NUM_HISTORY_SHARDS). */
export const TEMPORAL_HISTORY_SHARDS = 4;

/** The Temporal server version: the one the pinned CLI (scripts/ensure-tools.sh) builds its dev server from. */
export const TEMPORAL_SERVER_VERSION = '1.29.1';

/** The Temporal Web UI server version (docker-compose's temporalio/ui image). */
export const TEMPORAL_UI_VERSION = '2.42.1';

export function temporalEngineFrom(value: string | undefined, variable: string): TemporalEngine {
  if (value === undefined || value === '' || value === 'dev') return 'dev';
  if (value === 'server') return 'server';
  throw new Error(`${variable} must be "dev" or "server", not "${value}"`);
}

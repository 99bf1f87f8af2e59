/**
 * V8 flags the API process runs with (npm start, the bench, docker-compose), as the worker does
 * (workers/nodeArgs.ts). Without them the API's heap grows lazily under load: peak RSS 273–280
 * MiB during 320 charge creates at concurrency 32 (`BENCH_ONLY=creates`); with the old space
 * capped at 160 MB and a smaller young generation, 192–196 MiB, at the same creates/s and API
 * CPU per create (issue 14: API peak RSS < 200 MB under the create load). A young generation of
 * 4 MB instead of 8 gave 193 MiB for more API CPU per create: not taken.
 */
export const API_NODE_ARGS: readonly string[] = ['--max-old-space-size=160', '--max-semi-space-size=8'];

/**
 * A worker thread refuses V8 heap flags in its execArgv (ERR_WORKER_INVALID_EXEC_ARGV): the
 * receipt render pool passes its threads this process's flags without them.
 */
export { withoutHeapCaps } from '../workers/nodeArgs';

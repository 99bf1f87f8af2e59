/**
 * V8 flags the API process runs with (npm start, the bench, docker-compose), as the worker does
 * (workers/nodeArgs.ts). Without them the API's heap grows lazily under load; with the old space
 * capped and a smaller young generation its peak memory under the create load stays near the
 * goal, at the same creates/s and CPU per create. A smaller young generation still cost more CPU
 * per create: not taken. Measured with `BENCH_ONLY=creates`; the figures: docs/benchmarks.md.
 */
export const API_NODE_ARGS: readonly string[] = ['--max-old-space-size=160', '--max-semi-space-size=8'];

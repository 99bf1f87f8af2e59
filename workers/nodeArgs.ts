/**
 * V8 flags every worker process runs with (npm start, the bench, the tests' worker processes,
 * docker-compose). Without them the worker's heap grows lazily to several hundred MB of garbage
 * during a 10,000-item payout batch; with the old space capped and a smaller young generation,
 * V8 collects sooner, at the same throughput (the figures: docs/benchmarks.md). The live heap
 * of the worker is far below the cap.
 * Not passed on to the child that bundles the workflow code (webpack needs more).
 */
export const WORKER_NODE_ARGS: readonly string[] = ['--max-old-space-size=160', '--max-semi-space-size=8'];

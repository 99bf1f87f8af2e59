/**
 * Node flags of a process, for the threads and children it starts. The API and the worker both
 * cap their V8 heap (api/nodeArgs.ts, workers/nodeArgs.ts); a worker thread refuses V8 heap flags
 * in its execArgv (ERR_WORKER_INVALID_EXEC_ARGV), and the child that bundles the workflow code
 * needs more memory: both are given this process's flags without the caps.
 */

/** This process's node flags without the heap caps. */
export function withoutHeapCaps(args: readonly string[]): string[] {
  return args.filter((a) => !a.startsWith('--max-old-space-size') && !a.startsWith('--max-semi-space-size'));
}

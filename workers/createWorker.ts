/**
 * Builds a Temporal worker that runs every gateway workflow and activity on one task queue.
 * Dependencies come in from the caller (real ones in production, the same real ones with a
 * test task queue in integration tests).
 */
import path from 'node:path';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities';

export interface GatewayWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  deps: ActivityDeps;
  /** A prebuilt workflow bundle (tests share one across workers to save start-up time). */
  workflowBundle?: WorkerOptions['workflowBundle'];
  maxConcurrentActivityTaskExecutions?: number;
  /** How long a shutdown lets activities in flight finish before cancelling them (the SDK's default: 0). */
  shutdownGraceTime?: WorkerOptions['shutdownGraceTime'];
}

export const workflowsPath = path.join(__dirname, '..', 'workflows');

export async function createGatewayWorker(opts: GatewayWorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: opts.connection,
    namespace: opts.namespace,
    taskQueue: opts.taskQueue,
    ...(opts.workflowBundle
      ? { workflowBundle: opts.workflowBundle }
      : { workflowsPath: require.resolve(workflowsPath) }),
    activities: createActivities(opts.deps),
    maxConcurrentActivityTaskExecutions: opts.maxConcurrentActivityTaskExecutions ?? 100,
    ...(opts.shutdownGraceTime !== undefined ? { shutdownGraceTime: opts.shutdownGraceTime } : {}),
    // The SDK sizes the workflow cache from the heap limit, and under the worker's heap cap
    // (workers/nodeArgs.ts) that is its floor: 10 workflows. The cache also bounds the workflow
    // tasks in progress, so only 10 charges could be issued at once. Each cached run costs
    // workflow-thread heap, so the cache is as large as the workflow tasks in progress need and
    // small enough to keep the worker under its memory goal (the figures: docs/benchmarks.md).
    // A run evicted from the cache is replayed from its history when it next has work (a
    // charge paid hours later is, in any case).
    maxCachedWorkflows: 200,
    maxConcurrentWorkflowTaskExecutions: 100,
  });
}

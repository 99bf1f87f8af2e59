/**
 * The run's one workflow bundle (built by test/support/globalSetup.js) as Worker options: every
 * test worker of the gateway's workflows uses it instead of `workflowsPath`, which would bundle
 * the same code again for each worker. Outside `npm test` (a file run by hand) it falls back to
 * bundling on first use, once per file.
 */
import { bundleWorkflowCode, type WorkerOptions } from '@temporalio/worker';
import { workflowsPath } from '../../workers/createWorker';

let fallback: Promise<{ code: string }> | undefined;

export async function workflowBundle(): Promise<NonNullable<WorkerOptions['workflowBundle']>> {
  const codePath = process.env.GATEWAY_WORKFLOW_BUNDLE;
  if (codePath) return { codePath };
  const quiet = () => undefined;
  fallback ??= bundleWorkflowCode({
    workflowsPath: require.resolve(workflowsPath),
    logger: { log: quiet, trace: quiet, debug: quiet, info: quiet, warn: quiet, error: quiet },
  });
  return fallback;
}

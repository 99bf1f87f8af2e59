/** Child process entry of bundleWorkflowsInChild: `bundleWorkflowsCli <out-file>`. */
import { writeWorkflowBundle } from './bundleWorkflows';

writeWorkflowBundle(process.argv[2]).catch((err: unknown) => {
  process.stderr.write(`workflow bundle failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});

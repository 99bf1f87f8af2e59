/**
 * Once per jest run, before any test file: bundles the workflow code (workers/bundleWorkflowsCli.ts,
 * in a child process, as the worker does in production) into the run's log directory and hands
 * its path to every jest worker as GATEWAY_WORKFLOW_BUNDLE. Test workers, the integration stacks'
 * workers, the worker processes tests spawn and the replay test all load this one file
 * (test/support/workflowBundle.ts) instead of bundling the same code again. Also makes the
 * directory where the shared integration stacks describe themselves. Plain JavaScript:
 * jest loads it outside the projects' TypeScript transform.
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

module.exports = async function globalSetup() {
  // Where the shared integration stacks (test/support/sharedStack.ts) describe themselves: out of
  // the log directory, which the secrets audit scans (the descriptions hold the stacks' keys).
  process.env.GATEWAY_SHARED_STACKS_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-shared-stacks-'));
  const existing = process.env.GATEWAY_WORKFLOW_BUNDLE;
  if (existing && fs.existsSync(existing)) return;
  const root = path.resolve(__dirname, '..', '..');
  const dir = process.env.GATEWAY_TEST_LOG_DIR || fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-bundle-'));
  const out = path.join(dir, 'workflow-bundle.js');
  const started = Date.now();
  const child = spawnSync(
    process.execPath,
    ['--import', 'tsx', path.join(root, 'workers', 'bundleWorkflowsCli.ts'), out],
    { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  if (child.status !== 0 || !fs.existsSync(out))
    throw new Error(`bundling the workflow code failed (exit ${child.status})`);
  // Inherited by the jest workers, which start after this.
  process.env.GATEWAY_WORKFLOW_BUNDLE = out;
  process.stdout.write(
    `[test] workflow code bundled once for the run in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
  );
};

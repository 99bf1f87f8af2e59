/**
 * Bundles the workflow code into a file, in a process of its own: webpack's memory (which the
 * V8 heap keeps once grown) then never lives in the worker, whose resident memory stays that
 * much lower for its whole life (docs/benchmarks.md).
 *
 *   node [--import tsx] workers/bundleWorkflowsCli.ts <out-file>   (dist/workers/bundleWorkflowsCli.js from the build)
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { workflowsPath } from './createWorker';
import { withoutHeapCaps } from '../core/nodeArgs';

/** Builds the bundle in a child process and returns its path (a fresh temporary file). */
export async function bundleWorkflowsInChild(): Promise<string> {
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-workflows-')), 'workflow-bundle.js');
  const child = spawn(
    process.execPath,
    [...withoutHeapCaps(process.execArgv), path.join(__dirname, `bundleWorkflowsCli${path.extname(__filename)}`), out],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (code !== 0 || !fs.existsSync(out)) throw new Error(`bundling the workflow code failed (exit ${code})`);
  return out;
}

export async function writeWorkflowBundle(out: string): Promise<void> {
  const quiet = () => undefined;
  const bundle = await bundleWorkflowCode({
    workflowsPath: require.resolve(workflowsPath),
    logger: {
      log: quiet,
      trace: quiet,
      debug: quiet,
      info: quiet,
      warn: quiet,
      error: (m: string) => process.stderr.write(`${m}\n`),
    },
  });
  fs.writeFileSync(out, bundle.code);
}

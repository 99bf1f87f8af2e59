/** Runs workers/main.ts as its own OS process (so a test can kill it with SIGKILL). */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { testLogFile } from './testLogs';
import { WORKER_NODE_ARGS } from '../../workers/nodeArgs';

/** The worker process; `outputFile` holds what it printed outside its pino log (undefined outside `npm test`). */
export type WorkerProcess = ChildProcess & { outputFile?: string };

/** `preload`: a CommonJS module the worker requires before its own code (a test's failpoint, test/support/failpoints). */
export function spawnWorkerProcess(env: Record<string, string>, opts: { preload?: string } = {}): WorkerProcess {
  const root = path.resolve(__dirname, '..', '..');
  // The worker's own pino lines go to the run's log directory (core/logger.ts); anything else it
  // prints (SDK warnings, a crash) is kept in a file there too, out of the test output.
  const file = testLogFile(`worker-process-${Date.now()}-${process.pid}.log`);
  const out = file ? fs.openSync(file, 'a') : 'ignore';
  // `node --import tsx` (not the tsx CLI) so the pid we hold is the worker itself.
  const child = spawn(
    process.execPath,
    [
      ...WORKER_NODE_ARGS,
      ...(opts.preload ? ['--require', opts.preload] : []),
      '--import',
      'tsx',
      path.join(root, 'workers', 'main.ts'),
    ],
    {
      cwd: root,
      // The run's one workflow bundle (test/support/globalSetup.js), not one more of its own.
      env: {
        ...process.env,
        ...env,
        NODE_ENV: 'test',
        ...(process.env.GATEWAY_WORKFLOW_BUNDLE ? { WORKFLOW_BUNDLE: process.env.GATEWAY_WORKFLOW_BUNDLE } : {}),
      },
      stdio: ['ignore', out, out],
    },
  );
  if (typeof out === 'number') fs.closeSync(out);
  return Object.assign(child, { outputFile: file });
}

export function killHard(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

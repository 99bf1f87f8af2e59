/** Runs workers/main.ts as its own OS process (so a test can kill it with SIGKILL). */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export function spawnWorkerProcess(env: Record<string, string>): ChildProcess {
  const root = path.resolve(__dirname, '..', '..');
  // `node --import tsx` (not the tsx CLI) so the pid we hold is the worker itself.
  return spawn(process.execPath, ['--import', 'tsx', path.join(root, 'workers', 'main.ts')], {
    cwd: root,
    env: { ...process.env, ...env, NODE_ENV: 'test', LOG_LEVEL: 'silent' },
    stdio: 'ignore',
  });
}

export function killHard(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

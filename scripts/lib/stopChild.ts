/** Stops a child process the scripts started: SIGTERM, then SIGKILL after 10 s; resolves once it has exited. */
import type { ChildProcess } from 'node:child_process';

export function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
  });
}

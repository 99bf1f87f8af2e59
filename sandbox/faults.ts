/**
 * Fault injection for /v1/* only (never the /sandbox/* control routes, or tests could not
 * turn faults off). Semantics, chosen to exercise the two distinct client failure modes:
 *  - latencyMs: every call waits that long before being handled.
 *  - errorRate: the call answers 503 *without* being processed (safe to retry, nothing happened).
 *  - timeoutRate: the call *is processed* but its answer is swallowed and the connection is
 *    dropped after hangMs: the client cannot know whether it happened, which is exactly
 *    what idempotency keys must make safe.
 */
import type { Socket } from 'node:net';
import type { RequestHandler, Response } from 'express';
import { sendError } from './errors';
import type { Faults, SandboxState } from './state';

export interface FaultRuntime {
  random: () => number;
  hangMs: number;
  /** Pending timers and deliberately hung sockets, so stop() can release them at once. */
  timers: Set<NodeJS.Timeout>;
  hung: Set<Socket>;
}

export function applyFaults(state: SandboxState, rt: FaultRuntime): RequestHandler {
  return (req, res, next) => {
    const faults: Faults = state.faults;
    const proceed = () => {
      if (faults.errorRate > 0 && rt.random() < faults.errorRate) {
        return sendError(res, 503, 'SANDBOX_FAULT', 'injected fault: provider unavailable');
      }
      if (faults.timeoutRate > 0 && rt.random() < faults.timeoutRate) swallowAnswer(res, rt);
      next();
    };
    if (faults.latencyMs > 0) later(rt, faults.latencyMs, proceed);
    else proceed();
  };
}

function swallowAnswer(res: Response, rt: FaultRuntime): void {
  // Every sandbox answer goes through res.send (res.json calls it), so this drops it.
  res.send = () => res;
  const socket = res.socket;
  if (!socket) return;
  rt.hung.add(socket);
  socket.once('close', () => rt.hung.delete(socket));
  later(rt, rt.hangMs, () => socket.destroy());
}

/** Drops hung connections and pending fault timers (shutdown). */
export function releaseFaults(rt: FaultRuntime): void {
  for (const timer of rt.timers) clearTimeout(timer);
  rt.timers.clear();
  for (const socket of rt.hung) socket.destroy();
  rt.hung.clear();
}

function later(rt: FaultRuntime, ms: number, fn: () => void): void {
  const timer = setTimeout(() => {
    rt.timers.delete(timer);
    fn();
  }, ms);
  rt.timers.add(timer);
}

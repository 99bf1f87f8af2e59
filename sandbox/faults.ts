/**
 * Fault injection for the provider's APIs: /v1/*, API Pix (/oauth/token, /api/v2/*) and Efí's routes (/v2/gn/*, /v3/gn/*), never the
 * /sandbox/* control routes (or tests could not turn faults off) nor the payer's side (payload
 * locations). One middleware serves every API, so a seeded schedule is one sequence of draws. Semantics, chosen to exercise the two distinct client failure modes:
 *  - latencyMs: every call waits that long before being handled.
 *  - errorRate: the call answers 503 *without* being processed (safe to retry, nothing happened).
 *  - failFirst: the same, but deterministic: the first n identical calls (method, URL and
 *    Idempotency-Key) answer 503, the next one goes through. Tests of "through transient errors"
 *    use it so that their run time does not depend on a lucky draw.
 *  - dropFirst: the first n identical calls (after any failFirst ones) ARE processed, but their
 *    answer is lost: the connection is dropped at once instead. Deterministic timeoutRate, for
 *    "a retry after a lost answer" on an API that takes no idempotency key (Efí's API Cobranças).
 *  - timeoutRate: the call *is processed* but its answer is swallowed and the connection is
 *    dropped after hangMs: the client cannot know whether it happened, which is exactly
 *    what idempotency keys must make safe.
 *  - paths: when given, only calls to these exact paths (no query) meet the faults above.
 *  - seed: the errorRate/timeoutRate draws come from a generator seeded with it (a new config
 *    starts it again), so a test drawing faults at random can print its seed and be replayed.
 */
import type { Socket } from 'node:net';
import type { Request, RequestHandler, Response } from 'express';
import { sendError } from './errors';
import { seededRandom } from './seededRandom';
import type { Faults, SandboxState } from './state';

export interface FaultRuntime {
  random: () => number;
  hangMs: number;
  /** Pending timers and deliberately hung sockets, so stop() can release them at once. */
  timers: Set<NodeJS.Timeout>;
  hung: Set<Socket>;
}

/** Bounds the failFirst memory of a long-running sandbox; counting starts again past it. */
const MAX_COUNTED_CALLS = 100_000;

/** The /v1 shape of an injected 503; API Pix answers problem+json instead (app.ts picks by path). */
function unavailableV1(_req: Request, res: Response): void {
  sendError(res, 503, 'SANDBOX_FAULT', 'injected fault: provider unavailable');
}

export function applyFaults(
  state: SandboxState,
  rt: FaultRuntime,
  respondUnavailable: (req: Request, res: Response) => void = unavailableV1,
): RequestHandler {
  // Calls seen under the current fault config; a new config (a new object) starts a new count.
  let countedFor: Faults | null = null;
  const seen = new Map<string, number>();
  let drawsFor: Faults | null = null;
  let draw = rt.random;
  const random = (faults: Faults): number => {
    if (drawsFor !== faults) {
      drawsFor = faults;
      draw = faults.seed === null ? rt.random : seededRandom(faults.seed);
    }
    return draw();
  };
  /** How many identical calls came before this one under the current config. */
  const countBefore = (faults: Faults, call: string): number => {
    if (countedFor !== faults || seen.size >= MAX_COUNTED_CALLS) {
      seen.clear();
      countedFor = faults;
    }
    const count = seen.get(call) ?? 0;
    seen.set(call, count + 1);
    return count;
  };
  return (req, res, next) => {
    const faults: Faults = state.faults;
    if (faults.paths && !faults.paths.includes(req.originalUrl.split('?')[0])) return next();
    const proceed = () => {
      const before =
        faults.failFirst > 0 || faults.dropFirst > 0
          ? countBefore(faults, `${req.method} ${req.originalUrl} ${req.get('idempotency-key') ?? ''}`)
          : Infinity;
      const unavailable = before < faults.failFirst || (faults.errorRate > 0 && random(faults) < faults.errorRate);
      if (unavailable) return respondUnavailable(req, res);
      if (before < faults.failFirst + faults.dropFirst) {
        dropAnswer(res);
        return next();
      }
      if (faults.timeoutRate > 0 && random(faults) < faults.timeoutRate) swallowAnswer(res, rt);
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

/** Lets the call be processed and drops the connection when its answer would be sent. */
function dropAnswer(res: Response): void {
  res.send = () => {
    res.socket?.destroy();
    return res;
  };
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

/**
 * Applying one fault of the schedule to the running stack and timing what the stack does about it:
 * a SIGKILL to the part's current process, then how long until the supervisor had a new process,
 * until that part was up again (the API's /healthz, the sandbox's /health, a worker's own
 * /healthz — 200 once it polls —, the Temporal server answering, PostgreSQL accepting) and until the
 * gateway's /ready answered 200; or a SIGSTOP held past the workers' heartbeat timeout, then
 * SIGCONT.
 */
import type { Stack } from '../stack';
import type { Fault } from './schedule';

export interface FaultResult {
  fault: Fault;
  /** When it was applied (epoch ms). */
  at: number;
  pid: number;
  /** From the fault: a new process of the part (kill only). */
  newProcessMs?: number;
  /** From the fault: the part up again (kill), or the process resumed (pause). */
  upMs?: number;
  /** From the fault: /ready 200 again. */
  readyMs?: number;
  /** When the part was back, everything included (epoch ms): where the next gap starts. */
  backAt: number;
  /** What did not come back within the wait. */
  problem?: string;
}

/** What the runner saw of the parts: each (re)start. */
export class PartWatch {
  private readonly starts = new Map<string, { pid: number; at: number }[]>();

  started(part: string, pid: number): void {
    this.starts.set(part, [...(this.starts.get(part) ?? []), { pid, at: Date.now() }]);
  }

  /** A start of `part` after `since` by a process other than `pid`. */
  restartAfter(part: string, since: number, pid: number): number | undefined {
    return this.starts.get(part)?.find((s) => s.at >= since && s.pid !== pid)?.at;
  }

  restarts(part: string): number {
    return Math.max(0, (this.starts.get(part)?.length ?? 0) - 1);
  }
}

export interface FaultContext {
  stack: Stack;
  watch: PartWatch;
  /** The longest wait for a part to come back before it is reported as not back. */
  timeoutMs: number;
}

export async function applyFault(fault: Fault, ctx: FaultContext): Promise<FaultResult> {
  const pid = ctx.stack.parts.get(fault.target)?.current()?.pid;
  if (!pid) throw new Error(`no running process for ${fault.target}`);
  const at = Date.now();
  if (fault.action === 'pause') return pause(fault, ctx, pid, at);
  process.kill(pid, 'SIGKILL');
  const since = (t: number | undefined) => (t === undefined ? undefined : t - at);
  const deadline = at + ctx.timeoutMs;
  const newProcessAt = await until(() => ctx.watch.restartAfter(fault.target, at, pid), deadline);
  const upAt = newProcessAt === undefined ? undefined : await until(() => partUp(fault.target, at, ctx), deadline);
  const readyAt = upAt === undefined ? undefined : await until(() => gatewayReady(ctx.stack), deadline);
  return {
    fault,
    at,
    pid,
    newProcessMs: since(newProcessAt),
    upMs: since(upAt),
    readyMs: since(readyAt),
    backAt: readyAt ?? Date.now(),
    problem: readyAt === undefined ? `${fault.target} not back within ${ctx.timeoutMs / 1000} s` : undefined,
  };
}

async function pause(fault: Fault, ctx: FaultContext, pid: number, at: number): Promise<FaultResult> {
  process.kill(pid, 'SIGSTOP');
  try {
    await sleep(fault.pauseMs ?? 0);
  } finally {
    process.kill(pid, 'SIGCONT');
  }
  const resumed = Date.now();
  const readyAt = await until(() => gatewayReady(ctx.stack), at + (fault.pauseMs ?? 0) + ctx.timeoutMs);
  return {
    fault,
    at,
    pid,
    upMs: resumed - at,
    readyMs: readyAt === undefined ? undefined : readyAt - at,
    backAt: readyAt ?? Date.now(),
    problem: readyAt === undefined ? `the gateway not ready after ${fault.target} resumed` : undefined,
  };
}

/** When the part is up again (epoch ms), or undefined while it is not. */
async function partUp(target: string, since: number, ctx: FaultContext): Promise<number | undefined> {
  if (target === 'api') return (await answers(`${ctx.stack.apiUrl}/healthz`)) ? Date.now() : undefined;
  if (target === 'sandbox') return (await answers(`${ctx.stack.sandboxUrl}/health`)) ? Date.now() : undefined;
  const workerHealth = ctx.stack.workerHealthUrls[target];
  if (workerHealth) return (await answers(workerHealth)) ? Date.now() : undefined;
  // The Temporal server and PostgreSQL: their supervisor's start resolves once they accept.
  return ctx.watch.restartAfter(target, since, -1);
}

async function gatewayReady(stack: Stack): Promise<number | undefined> {
  return (await answers(`${stack.apiUrl}/ready`)) ? Date.now() : undefined;
}

async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(5_000) });
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}

/** Polls `probe` every 250 ms until it gives a time or the deadline passes. */
async function until(probe: () => number | undefined | Promise<number | undefined>, deadline: number) {
  for (;;) {
    const t = await probe();
    if (t !== undefined) return t;
    if (Date.now() > deadline) return undefined;
    await sleep(250);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

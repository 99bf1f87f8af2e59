/**
 * The chaos run's fault schedule, drawn from its seed: the same seed gives the same faults in the
 * same order with the same gaps, so a run that found something can be replayed (CHAOS_SEED).
 * Faults come in rounds: each round kills every target once, in a shuffled order, and pauses one
 * worker (SIGSTOP past its activities' heartbeat timeout, then SIGCONT). The gap after a fault
 * counts from the moment the part is back (the runner waits for it), so a slow recovery delays the
 * next fault rather than piling faults on a stack that never came back.
 */
export type FaultAction = 'kill' | 'pause';

export interface Fault {
  /** 1-based, in the order applied. */
  n: number;
  target: string;
  action: FaultAction;
  /** Wait after the previous fault's part is back (and before the first fault: the warm-up). */
  gapMs: number;
  /** How long a pause holds the process stopped. */
  pauseMs?: number;
}

export interface ScheduleOptions {
  random: () => number;
  /** The parts to kill (every one is killed once per round). */
  killTargets: readonly string[];
  /** The parts one of which is paused per round (the workers). */
  pauseTargets: readonly string[];
  rounds: number;
  gapMs: { min: number; max: number };
  /** The first fault's wait after the load started. */
  warmUpMs: number;
  pauseMs: number;
}

export function faultSchedule(opts: ScheduleOptions): Fault[] {
  const faults: Fault[] = [];
  const gap = () => Math.round(opts.gapMs.min + opts.random() * (opts.gapMs.max - opts.gapMs.min));
  for (let round = 0; round < opts.rounds; round++) {
    const order: Omit<Fault, 'n' | 'gapMs'>[] = opts.killTargets.map((target) => ({ target, action: 'kill' }));
    if (opts.pauseTargets.length > 0) {
      const target = opts.pauseTargets[Math.floor(opts.random() * opts.pauseTargets.length)];
      order.push({ target, action: 'pause', pauseMs: opts.pauseMs });
    }
    for (const f of shuffle(order, opts.random))
      faults.push({ ...f, n: faults.length + 1, gapMs: faults.length === 0 ? opts.warmUpMs : gap() });
  }
  return faults;
}

/** Fisher–Yates with the seeded draws. */
function shuffle<T>(items: T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/**
 * How many rounds fit in `seconds` of load: each fault takes its gap plus about `recoveryMs` to
 * come back; the last `tailMs` stay free of faults so the load ends on a stack that is whole.
 */
export function roundsFor(opts: {
  seconds: number;
  faultsPerRound: number;
  gapMs: { min: number; max: number };
  recoveryMs: number;
  warmUpMs: number;
  tailMs: number;
}): number {
  const perFault = (opts.gapMs.min + opts.gapMs.max) / 2 + opts.recoveryMs;
  const budget = opts.seconds * 1000 - opts.warmUpMs - opts.tailMs;
  return Math.max(1, Math.floor(budget / (perFault * opts.faultsPerRound)));
}

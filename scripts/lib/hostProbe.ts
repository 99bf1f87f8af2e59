/**
 * The host's speed during a run, not only at its start (docs/benchmarks.md, "The host's speed
 * moves within a run"). On this kind of machine the time of one fixed operation moves by tens of
 * percent from one minute to the next, idle or busy, so a ratio of two windows' times (the payout
 * part's linearity: a 10,000-item batch of about a minute against ten of them) moves with it.
 * Each window's speed is measured, so a ratio can be read beside it:
 *
 * a small plain-node child (`node -e`, as the watchdog) hashes a fixed slice of the calibration's
 * loop (20,000 chained SHA-256 of 32 bytes) every 2 s and prints the CPU time the slice took —
 * its own CPU time, not the wall clock, so waiting for a core on a loaded host does not count; what
 * is left is the host's speed per operation. A window's figure is the median of the slices that
 * ran inside it. It costs about 2 % of one core. The child ends when the bench's pipe to it closes
 * (the bench ended, however), and carries the run's marker, so the watchdog ends it too.
 */
import { spawn } from 'node:child_process';
import readline from 'node:readline';

/** Hashes per slice: a fixed share of the calibration's loop (scripts/lib/hostCalibration.ts). */
const SLICE_HASHES = 20_000;
export const PROBE_SLICE = `${SLICE_HASHES.toLocaleString('en-US')} chained sha256 of 32 B`;

/** Plain JavaScript for `node -e`. argv: [node, intervalMs, hashes]. Prints "<epoch ms> <cpu ms>" per slice. */
const PROBE_SOURCE = String.raw`
const crypto = require('crypto');
const interval = Number(process.argv[1]);
const hashes = Number(process.argv[2]);
process.stdin.on('end', () => process.exit(0)).resume();
const slice = () => {
  const before = process.cpuUsage();
  let digest = Buffer.alloc(32);
  for (let i = 0; i < hashes; i++) digest = crypto.createHash('sha256').update(digest).digest();
  const used = process.cpuUsage(before);
  process.stdout.write(Date.now() + ' ' + ((used.user + used.system) / 1000).toFixed(2) + '\n');
  setTimeout(slice, interval);
};
slice();
`;

export interface ProbeSample {
  /** When the slice ended (epoch ms). */
  at: number;
  /** CPU ms it took. */
  cpuMs: number;
}

export interface HostProbe {
  /** The median CPU ms of the slices that ended within [fromMs, toMs] (epoch ms); undefined when none did. */
  medianBetween: (fromMs: number, toMs: number) => number | undefined;
  /** The child's pid (tests look for it after stop). */
  pid: number | undefined;
  stop: () => void;
}

export function startHostProbe(intervalMs = 2_000): HostProbe {
  const samples: ProbeSample[] = [];
  const child = spawn(process.execPath, ['-e', PROBE_SOURCE, String(intervalMs), String(SLICE_HASHES)], {
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  // It must not keep the bench alive, nor take it down: a probe that dies leaves windows without a figure.
  child.unref();
  child.on('error', () => undefined);
  child.stdin!.on('error', () => undefined);
  (child.stdin as unknown as { unref?: () => void }).unref?.();
  (child.stdout as unknown as { unref?: () => void }).unref?.();
  readline.createInterface({ input: child.stdout! }).on('line', (line) => {
    const sample = parseProbeLine(line);
    if (sample) samples.push(sample);
  });
  return {
    medianBetween: (fromMs, toMs) => medianCpuMs(samples, fromMs, toMs),
    pid: child.pid,
    stop: () => {
      child.stdin!.end();
      child.kill();
    },
  };
}

export function parseProbeLine(line: string): ProbeSample | undefined {
  const [at, cpuMs] = line.trim().split(' ').map(Number);
  return Number.isFinite(at) && Number.isFinite(cpuMs) && cpuMs > 0 ? { at, cpuMs } : undefined;
}

export function medianCpuMs(samples: ProbeSample[], fromMs: number, toMs: number): number | undefined {
  const inside = samples
    .filter((s) => s.at >= fromMs && s.at <= toMs)
    .map((s) => s.cpuMs)
    .sort((a, b) => a - b);
  if (!inside.length) return undefined;
  const mid = Math.floor(inside.length / 2);
  return inside.length % 2 ? inside[mid] : (inside[mid - 1] + inside[mid]) / 2;
}

/**
 * A ratio of two windows' times with the host's speed taken out: `ratio` × (the first window's
 * slice ÷ the second's). A host 10 % slower during the second window (its slices 10 % longer)
 * brings the ratio down by that much. Undefined when either window has no figure.
 */
export function hostAdjusted(
  ratio: number,
  firstMs: number | undefined,
  secondMs: number | undefined,
): number | undefined {
  return firstMs && secondMs ? (ratio * firstMs) / secondMs : undefined;
}

/** For a ratio's note: each window's slice, and the ratio with the host's speed taken out. */
export function hostSpeedNote(ratio: number, firstMs: number | undefined, secondMs: number | undefined): string {
  const adjusted = hostAdjusted(ratio, firstMs, secondMs);
  if (adjusted === undefined || firstMs === undefined || secondMs === undefined)
    return 'the host probe gave no figure for a window';
  return `host slice ${firstMs.toFixed(1)} → ${secondMs.toFixed(1)} ms: ${adjusted.toFixed(2)} with the host's speed taken out`;
}

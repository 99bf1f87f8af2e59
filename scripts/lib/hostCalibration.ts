/**
 * The host's speed on record (docs/benchmarks.md, "Comparing hosts"): a fixed CPU-bound loop —
 * 100,000 chained SHA-256 of 32 bytes on the main thread, a warm-up run then the median of 5 —
 * timed at the start of every bench run, printed on one line and kept in the run's JSON. Absolute
 * figures from two hosts compare only through it: a host whose calibration is twice as long does
 * roughly twice the CPU time per operation. The loop never changes; a new one would be a new name.
 */
import crypto from 'node:crypto';
import os from 'node:os';

export const CALIBRATION_LOOP = '100,000 chained sha256 of 32 B';
const ITERATIONS = 100_000;
const RUNS = 5;

export interface HostCalibration {
  /** What was timed: the same words on every host. */
  loop: string;
  /** The median of the runs, in ms. */
  medianMs: number;
  /** Every run, in ms, in the order timed (the spread shows a busy host). */
  runsMs: number[];
  cpuModel: string;
  cores: number;
  node: string;
}

function once(): number {
  let digest = Buffer.alloc(32);
  const started = performance.now();
  for (let i = 0; i < ITERATIONS; i++) digest = crypto.createHash('sha256').update(digest).digest();
  return performance.now() - started;
}

export function calibrateHost(): HostCalibration {
  once(); // warm-up: the JIT, OpenSSL's first use
  const runsMs = Array.from({ length: RUNS }, () => Math.round(once() * 10) / 10);
  const medianMs = [...runsMs].sort((a, b) => a - b)[Math.floor(RUNS / 2)];
  return {
    loop: CALIBRATION_LOOP,
    medianMs,
    runsMs,
    cpuModel: os.cpus()[0]?.model.trim() ?? 'unknown',
    cores: os.availableParallelism(),
    node: process.version,
  };
}

/** The one line each run prints. */
export function calibrationLine(c: HostCalibration): string {
  return `host calibration: ${c.medianMs} ms for ${c.loop} (median of ${c.runsMs.length}: ${c.runsMs.join(', ')} ms; ${c.cpuModel}, ${c.cores} cores, node ${c.node})`;
}

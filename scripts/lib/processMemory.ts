/** Peak RSS of a bench process (Linux /proc): VmHWM, and its reset so a peak covers one phase. */
import fs from 'node:fs';

/** The process's peak resident set (VmHWM) in MiB. */
export function peakRssMib(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/** Resets the process's VmHWM to its current RSS (Linux: clear_refs 5), so the next peak covers what follows alone. */
export function resetPeakRss(pid: number): void {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    // Not permitted here: the peak then covers the process's whole life, which is only higher.
  }
}

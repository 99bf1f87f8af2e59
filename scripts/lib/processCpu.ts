/**
 * CPU time of the bench's processes, by group (Linux /proc only): a snapshot before a phase and
 * one after it give each group's CPU milliseconds (user + system, every thread) spent during the
 * phase. A process that starts during the phase counts from zero; one that ends during it is
 * lost (PostgreSQL backends are pooled connections, so they live through a phase).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** Named groups of processes; each function lists the group's pids at snapshot time. */
export type ProcessGroups = Record<string, () => number[]>;

/** Per group, per pid: CPU ms used since the process started. */
export type CpuSnapshot = Record<string, Map<number, number>>;

let tickMs: number | undefined;

/** Milliseconds per clock tick (the unit of /proc/<pid>/stat's utime and stime; 10 ms almost everywhere). */
function clockTickMs(): number {
  if (tickMs === undefined) {
    let hz = 100;
    try {
      hz = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      // getconf missing: the Linux default.
    }
    tickMs = 1000 / hz;
  }
  return tickMs;
}

/** Fields of /proc/<pid>/stat after the command name (which may hold spaces and parentheses). */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined; // gone
  }
}

/** CPU ms (utime + stime) of one process since it started; undefined when it is gone. */
export function processCpuMs(pid: number): number | undefined {
  const f = statFields(pid);
  // After the name: state, ppid, …; utime and stime are fields 14 and 15 of the whole line.
  return f ? (Number(f[11]) + Number(f[12])) * clockTickMs() : undefined;
}

function allPids(): number[] {
  return fs
    .readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .map(Number);
}

/**
 * Every process whose command line contains `needle`, and all their descendants (PostgreSQL's
 * backends rename themselves, so only the postmaster's command line names the data directory).
 */
export function pidsMatchingWithDescendants(needle: string): number[] {
  const parentOf = new Map<number, number>();
  const found = new Set<number>();
  for (const pid of allPids()) {
    const f = statFields(pid);
    if (f) parentOf.set(pid, Number(f[1]));
    try {
      if (fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(needle)) found.add(pid);
    } catch {
      // gone
    }
  }
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, ppid] of parentOf) {
      if (!found.has(pid) && found.has(ppid)) {
        found.add(pid);
        grew = true;
      }
    }
  }
  return [...found];
}

/** The embedded PostgreSQL of a data directory: its postmaster and every backend. */
export function postgresPids(dataDir: string): number[] {
  return pidsMatchingWithDescendants(path.resolve(dataDir));
}

export function cpuSnapshot(groups: ProcessGroups): CpuSnapshot {
  const snap: CpuSnapshot = {};
  for (const [name, pids] of Object.entries(groups)) {
    const m = new Map<number, number>();
    for (const pid of pids()) {
      const ms = processCpuMs(pid);
      if (ms !== undefined) m.set(pid, ms);
    }
    snap[name] = m;
  }
  return snap;
}

/** CPU ms each group used between two snapshots. */
export function cpuDeltaMs(before: CpuSnapshot, after: CpuSnapshot): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, m] of Object.entries(after)) {
    let sum = 0;
    for (const [pid, ms] of m) sum += ms - (before[name]?.get(pid) ?? 0);
    out[name] = sum;
  }
  return out;
}

/** "api 12.3 · worker 20.1 · … · total 48.7": each group's CPU ms divided by the operations. */
export function perOp(cpuMs: Record<string, number>, ops: number): string {
  const parts = Object.entries(cpuMs).map(([name, ms]) => `${name} ${(ms / ops).toFixed(1)}`);
  const total = Object.values(cpuMs).reduce((a, b) => a + b, 0);
  return [...parts, `total ${(total / ops).toFixed(1)}`].join(' · ');
}

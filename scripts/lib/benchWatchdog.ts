/**
 * Nothing the bench started outlives it, whatever ends it (docs/benchmarks.md): an error, Ctrl-C,
 * SIGTERM, or a SIGKILL of the bench process, for which no handler of its runs. The bench's first
 * act is to start this watchdog: a small plain-node process whose stdin is a pipe from the bench.
 * The kernel closes that pipe when the bench process ends, however it ends, so the watchdog reads
 * end-of-file then — and only then: it ignores SIGINT, SIGTERM and SIGHUP, so a Ctrl-C to the
 * terminal's process group or a kill of the group's leader leaves it to finish the job.
 *
 * What it ends: every process carrying the run's marker in its environment (GATEWAY_BENCH_RUN,
 * set by the bench before it starts anything, and inherited by all it starts: the API, the
 * worker, the Temporal dev server or server, the embedded PostgreSQL — found in
 * /proc/<pid>/environ, so a process started a moment before the bench died, not yet told to the
 * watchdog, or already reparented, is found all the same; PostgreSQL's backends write their
 * titles over their environment, but they end with their postmaster), and every pid the bench told it
 * (watch()), checked against its start time so a reused pid is never hit. Each gets SIGTERM
 * (PostgreSQL SIGINT: its fast shutdown; SIGTERM would wait for clients), and SIGKILL when still
 * there after BENCH_WATCHDOG_GRACE_MS (10 s). A zombie counts as gone: only its parent (or init)
 * can reap it. After an orderly end the bench has stopped everything itself and the watchdog
 * finds nothing to do.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';

/** The environment variable that marks every process of one bench run. */
export const BENCH_RUN_MARKER = 'GATEWAY_BENCH_RUN';

/** Plain JavaScript for `node -e`: no loader, starts in tens of ms. argv: [node, marker, graceMs]. */
const WATCHDOG_SOURCE = String.raw`
const fs = require('fs');
const [, marker, graceArg] = process.argv;
const grace = Number(graceArg);
for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(s, () => {});
const stat = (pid) => {
  try {
    const s = fs.readFileSync('/proc/' + pid + '/stat', 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return { state: f[0], start: f[19] };
  } catch { return undefined; }
};
const comm = (pid) => { try { return fs.readFileSync('/proc/' + pid + '/comm', 'utf8').trim(); } catch { return ''; } };
const watched = new Map();
let pending = '';
process.stdin.on('data', (chunk) => {
  pending += chunk;
  let i;
  while ((i = pending.indexOf('\n')) >= 0) {
    const pid = Number(pending.slice(0, i));
    pending = pending.slice(i + 1);
    const s = stat(pid);
    if (s) watched.set(pid, s.start);
  }
});
const left = () => {
  const pids = new Set();
  let entries = [];
  try { entries = fs.readdirSync('/proc'); } catch {}
  for (const d of entries) {
    if (!/^\d+$/.test(d) || Number(d) === process.pid) continue;
    try { if (fs.readFileSync('/proc/' + d + '/environ').includes(marker)) pids.add(Number(d)); } catch {}
  }
  for (const [pid, start] of watched) if (stat(pid)?.start === start) pids.add(pid);
  return [...pids].filter((pid) => { const s = stat(pid); return s && s.state !== 'Z'; });
};
const kill = (pid, sig) => { try { process.kill(pid, sig); } catch {} };
let sweeping = false;
const sweep = async () => {
  if (sweeping) return;
  sweeping = true;
  for (const pid of left()) kill(pid, comm(pid) === 'postgres' ? 'SIGINT' : 'SIGTERM');
  const deadline = Date.now() + grace;
  while (left().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  for (const pid of left()) kill(pid, 'SIGKILL');
  process.exit(0);
};
process.stdin.on('end', sweep);
process.stdin.on('close', sweep);
process.stdin.on('error', sweep);
`;

export interface BenchWatchdog {
  /** The marker's value: every process started from now on carries it. */
  runId: string;
  /** Tells the watchdog a child's pid (belt and braces beside the marker). */
  watch: (child: ChildProcess | number | undefined) => void;
}

/**
 * Marks this process's environment (children inherit it) and starts the watchdog. A run id
 * already in the environment is kept: a caller (the cleanup test) may choose it to find the
 * run's processes itself.
 */
export function startBenchWatchdog(): BenchWatchdog {
  const runId = (process.env[BENCH_RUN_MARKER] ||= crypto.randomUUID());
  const graceMs = Number(process.env.BENCH_WATCHDOG_GRACE_MS ?? 10_000);
  const dog = spawn(process.execPath, ['-e', WATCHDOG_SOURCE, `${BENCH_RUN_MARKER}=${runId}`, String(graceMs)], {
    stdio: ['pipe', 'ignore', 'inherit'],
  });
  // Neither keeps the bench alive: it ends when its work is done, and the pipe closes with it.
  dog.unref();
  const stdin = dog.stdin!;
  (stdin as unknown as { unref?: () => void }).unref?.();
  stdin.on('error', () => undefined);
  return {
    runId,
    watch: (child) => {
      const pid = typeof child === 'number' ? child : child?.pid;
      if (pid) stdin.write(`${pid}\n`);
    },
  };
}

/**
 * Nothing `npm run bench` started outlives it, even a SIGKILL of the bench process, for which no
 * handler runs (scripts/lib/benchWatchdog.ts; issue 40). The bench is started in its smallest
 * form (the creates part, the services from the sources, its own embedded PostgreSQL in a folder
 * of this test's, the Temporal dev server) with a run marker of the test's choosing in its
 * environment; once it prints that its services are up, every process of the run is found in
 * /proc — by the marker in its environment, and by parent chain from the bench — the bench is
 * SIGKILLed, and the test polls until none of them is left (a zombie counts as gone: only its
 * parent can reap it). Linux only (/proc).
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../cli/lib/projectRoot';
import { testLogFile } from '../support/testLogs';

// The bench's start on a slow, shared host (PostgreSQL, Temporal, migrations, the API and the
// worker under tsx), then the watchdog's grace before SIGKILL: generous, the test polls.
jest.setTimeout(300_000);

const MARKER = 'GATEWAY_BENCH_RUN';
const itOnLinux = fs.existsSync('/proc/self/environ') ? it : it.skip;

/** A process's state letter and start time (clock ticks since boot), or undefined once it is gone. */
function stat(pid: number): { state: string; start: string; ppid: number } | undefined {
  try {
    const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return { state: f[0], ppid: Number(f[1]), start: f[19] };
  } catch {
    return undefined;
  }
}

function allPids(): number[] {
  return fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number);
}

function cmdline(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
  } catch {
    return '';
  }
}

/** Live (not zombie) processes whose environment carries the marker. */
function marked(marker: string): number[] {
  return allPids().filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/environ`).includes(marker) && stat(pid)?.state !== 'Z';
    } catch {
      return false;
    }
  });
}

/** Every live descendant of `root`, by parent chain. */
function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const pid of allPids()) {
    const s = stat(pid);
    if (s) children.set(s.ppid, [...(children.get(s.ppid) ?? []), pid]);
  }
  const out: number[] = [];
  const queue = [root];
  while (queue.length)
    for (const c of children.get(queue.shift()!) ?? []) {
      out.push(c);
      queue.push(c);
    }
  return out.filter((pid) => stat(pid)?.state !== 'Z');
}

itOnLinux('leaves no process of its own behind when the bench itself is SIGKILLed mid-run', async () => {
  const runId = crypto.randomUUID();
  const marker = `${MARKER}=${runId}`;
  const logFile = testLogFile(`bench-cleanup-${process.pid}.log`);
  // The run's database server is not the bench's: it starts its own embedded PostgreSQL (a
  // process it must stop too), in a folder of this test's, kept between runs (initdb once).
  const { DATABASE_URL: _run, MIGRATION_DATABASE_URL: _runMigration, ...inherited } = process.env;
  const bench = spawn(process.execPath, ['--import', 'tsx', path.join(projectRoot, 'scripts', 'bench.ts')], {
    cwd: projectRoot,
    env: {
      ...inherited,
      [MARKER]: runId,
      BENCH_ONLY: 'creates',
      BENCH_SERVICES: 'source',
      // Enough creates that the part is still running when the bench is killed.
      BENCH_CREATES: '100000',
      BENCH_CREATES_SERIAL: '1',
      BENCH_POSTGRES_DIR: path.join('.data', 'bench-cleanup-postgres'),
      BENCH_WATCHDOG_GRACE_MS: '10000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    if (logFile) fs.appendFileSync(logFile, chunk);
  };
  bench.stdout!.on('data', collect);
  bench.stderr!.on('data', collect);
  let exited = false;
  bench.once('exit', () => (exited = true));

  try {
    // Up: the bench prints the services' pids once the API answers and the worker polls.
    const upBy = Date.now() + 240_000;
    while (!/services up: api pid (\d+), worker pid (\d+), temporal pid (\d+), postgres pid (\d+)/.test(output)) {
      if (exited) throw new Error(`the bench ended before its services were up:\n${output.slice(-4000)}`);
      if (Date.now() > upBy) throw new Error(`the bench's services were not up in 240 s:\n${output.slice(-4000)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(output).toMatch(/^host calibration: [\d.]+ ms for /m);
    const [, api, worker, temporal, postgres] =
      /services up: api pid (\d+), worker pid (\d+), temporal pid (\d+), postgres pid (\d+)/.exec(output)!.map(Number);

    // Every process of the run now: by the marker and by parent chain, with its start time (a
    // pid reused later is not the same process).
    const before = new Map<number, string>();
    for (const pid of [...marked(marker), ...descendants(bench.pid!)]) {
      const s = stat(pid);
      if (s) before.set(pid, s.start);
    }
    for (const pid of [api, worker, temporal, postgres]) expect(before.has(pid)).toBe(true);
    const described = [...before.keys()].map((pid) => `${pid} ${cmdline(pid).slice(0, 120)}`).join('\n');

    bench.kill('SIGKILL');
    await new Promise<void>((r) => (exited ? r() : bench.once('exit', () => r())));

    const left = () => {
      const still = new Set(marked(marker));
      for (const [pid, start] of before) {
        const s = stat(pid);
        if (s && s.start === start && s.state !== 'Z') still.add(pid);
      }
      return [...still];
    };
    // The watchdog's grace (10 s) then SIGKILL: well within the bound on any host.
    const goneBy = Date.now() + 60_000;
    while (left().length > 0 && Date.now() < goneBy) await new Promise((r) => setTimeout(r, 250));
    const remaining = left().map((pid) => `${pid} ${cmdline(pid).slice(0, 160)}`);
    expect({ remaining, hadRunning: described.split('\n').length >= 4 }).toEqual({ remaining: [], hadRunning: true });
  } finally {
    // Whatever failed above: nothing of the run is left for the next test either.
    if (!exited) bench.kill('SIGKILL');
    for (const pid of marked(marker)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone meanwhile.
      }
    }
  }
});

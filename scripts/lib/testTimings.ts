/**
 * The end of every `npm test`: where the time and the CPU went. From jest's JSON results, the
 * ten slowest files by wall time; from the per-file CPU records (test/support/cpuEnvironment.js:
 * each file's jest worker and the processes it started), the ten costliest files by CPU; per
 * project, its files' summed wall seconds and CPU seconds; and jest's whole CPU (scripts/lib/
 * withCpu.js: jest, its workers and everything under them, between files too). Summed file time
 * is more than the wall time: the files run side by side. On 2 cores, CPU seconds are what a
 * slower host multiplies, so they are the suite's budget.
 */
import fs from 'node:fs';
import path from 'node:path';

interface JestFileResult {
  name: string;
  startTime: number;
  endTime: number;
  status: string;
}

/** One file's record from test/support/cpuEnvironment.js. */
export interface FileCpu {
  file: string;
  wallSeconds: number;
  cpuSeconds: number;
  workerCpuSeconds: number;
}

/** jest.config.js's projects, by the folder under test/. */
const PROJECT_OF: Record<string, string> = {
  unit: 'unit',
  sandbox: 'unit',
  workflows: 'workflows',
  replay: 'workflows',
  integration: 'integration',
  browser: 'integration',
  smoke: 'smoke',
};

const projectOf = (file: string) => PROJECT_OF[file.split('/')[1]] ?? 'other';

/** The per-file CPU records of a run, keyed by the file's path from the checkout. */
export function readFileCpu(dir: string, root: string): Map<string, FileCpu> {
  const out = new Map<string, FileCpu>();
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((n) => n.endsWith('.json'));
  } catch {
    return out;
  }
  for (const name of names) {
    try {
      const r = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as FileCpu;
      out.set(path.relative(root, r.file).split(path.sep).join('/'), r);
    } catch {
      // A record cut short: the file counts without CPU.
    }
  }
  return out;
}

export function timingReport(
  resultsFile: string,
  root: string,
  opts: { cpuDir?: string; jestCpuFile?: string; slowest?: number } = {},
): string | null {
  const slowest = opts.slowest ?? 10;
  let files: JestFileResult[];
  try {
    files = (JSON.parse(fs.readFileSync(resultsFile, 'utf8')) as { testResults: JestFileResult[] }).testResults;
  } catch {
    return null;
  }
  const cpu = opts.cpuDir ? readFileCpu(opts.cpuDir, root) : new Map<string, FileCpu>();
  const rows = files
    .map((f) => {
      const file = path.relative(root, f.name).split(path.sep).join('/');
      return { file, seconds: (f.endTime - f.startTime) / 1000, cpu: cpu.get(file) };
    })
    .sort((a, b) => b.seconds - a.seconds);
  const projects = new Map<string, { files: number; seconds: number; cpu: number; workerCpu: number }>();
  for (const r of rows) {
    const name = projectOf(r.file);
    const p = projects.get(name) ?? { files: 0, seconds: 0, cpu: 0, workerCpu: 0 };
    p.files++;
    p.seconds += r.seconds;
    p.cpu += r.cpu?.cpuSeconds ?? 0;
    p.workerCpu += r.cpu?.workerCpuSeconds ?? 0;
    projects.set(name, p);
  }
  const cpuText = (c: FileCpu | undefined) => (c ? `${c.cpuSeconds.toFixed(1).padStart(7)} s CPU` : '');
  const lines = [`[test] the ${Math.min(slowest, rows.length)} slowest files (wall, then CPU):`];
  for (const r of rows.slice(0, slowest))
    lines.push(`[test]   ${r.seconds.toFixed(1).padStart(7)} s ${cpuText(r.cpu).padStart(14)}  ${r.file}`);
  const byCpu = rows.filter((r) => r.cpu).sort((a, b) => b.cpu!.cpuSeconds - a.cpu!.cpuSeconds);
  if (byCpu.length > 0) {
    lines.push(
      `[test] the ${Math.min(slowest, byCpu.length)} costliest files in CPU (the file's jest worker + the processes it started):`,
    );
    for (const r of byCpu.slice(0, slowest))
      lines.push(
        `[test]   ${r.cpu!.cpuSeconds.toFixed(1).padStart(7)} s CPU (worker ${r.cpu!.workerCpuSeconds.toFixed(1)} s) ${r.seconds.toFixed(1).padStart(7)} s wall  ${r.file}`,
      );
  }
  lines.push('[test] per project (files, summed wall seconds, summed CPU seconds):');
  for (const [name, p] of [...projects].sort((a, b) => b[1].cpu - a[1].cpu || b[1].seconds - a[1].seconds))
    lines.push(
      `[test]   ${name.padEnd(12)} ${String(p.files).padStart(3)} files ${p.seconds.toFixed(0).padStart(6)} s wall ${p.cpu.toFixed(0).padStart(6)} s CPU (in jest workers ${p.workerCpu.toFixed(0)} s)`,
    );
  const jest = jestCpu(opts.jestCpuFile);
  if (jest) {
    const files = [...projects.values()].reduce((sum, p) => sum + p.cpu, 0);
    lines.push(
      `[test] jest: ${jest.cpuSeconds.toFixed(0)} s CPU in ${jest.wallSeconds.toFixed(0)} s wall (files ${files.toFixed(0)} s; the rest: the workflow bundle, the workers' start and the time between files)`,
    );
  }
  return lines.join('\n');
}

/**
 * jest's CPU: what scripts/lib/withCpu.js counted (jest, its workers, every process they reaped)
 * plus the shared stacks', which outlive the workers that started them (globalTeardown.js records
 * it; `shared-stacks-cpu.json` beside `jestCpuFile`).
 */
export function jestCpu(jestCpuFile: string | undefined): { cpuSeconds: number; wallSeconds: number } | undefined {
  const counted = readJson<{ cpuSeconds: number; wallSeconds: number }>(jestCpuFile);
  if (!counted || !jestCpuFile) return undefined;
  const shared = readJson<{ cpuSeconds: number }>(path.join(path.dirname(jestCpuFile), 'shared-stacks-cpu.json'));
  return { cpuSeconds: counted.cpuSeconds + (shared?.cpuSeconds ?? 0), wallSeconds: counted.wallSeconds };
}

function readJson<T>(file: string | undefined): T | undefined {
  if (!file) return undefined;
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds of this process and every child it has reaped (with theirs): the whole run's, once
 * its children have exited, plus the shared stacks' (`sharedStacksCpuFile`), which no process of
 * the run reaps. Linux only (/proc/self/stat); undefined elsewhere.
 */
export function cpuSecondsOfThisRun(sharedStacksCpuFile?: string): number | undefined {
  const shared = readJson<{ cpuSeconds: number }>(sharedStacksCpuFile)?.cpuSeconds ?? 0;
  try {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const own = process.cpuUsage();
    // After the name: cutime and cstime are the 14th and 15th fields, in USER_HZ (100) ticks.
    return (own.user + own.system) / 1e6 + (Number(f[13]) + Number(f[14])) / 100 + shared;
  } catch {
    return undefined;
  }
}

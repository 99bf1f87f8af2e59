/**
 * The end of every `npm test`: where the time went, from jest's JSON results. The ten slowest
 * files and, per project, its files' summed time, so a slowdown shows where it happens. Summed
 * file time is more than the wall time: the files run side by side.
 */
import fs from 'node:fs';
import path from 'node:path';

interface JestFileResult {
  name: string;
  startTime: number;
  endTime: number;
  status: string;
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

export function timingReport(resultsFile: string, root: string, slowest = 10): string | null {
  let files: JestFileResult[];
  try {
    files = (JSON.parse(fs.readFileSync(resultsFile, 'utf8')) as { testResults: JestFileResult[] }).testResults;
  } catch {
    return null;
  }
  const rows = files
    .map((f) => ({
      file: path.relative(root, f.name).split(path.sep).join('/'),
      seconds: (f.endTime - f.startTime) / 1000,
    }))
    .sort((a, b) => b.seconds - a.seconds);
  const projects = new Map<string, { files: number; seconds: number }>();
  for (const r of rows) {
    const name = PROJECT_OF[r.file.split('/')[1]] ?? 'other';
    const p = projects.get(name) ?? { files: 0, seconds: 0 };
    p.files++;
    p.seconds += r.seconds;
    projects.set(name, p);
  }
  const lines = [`[test] the ${Math.min(slowest, rows.length)} slowest files:`];
  for (const r of rows.slice(0, slowest)) lines.push(`[test]   ${r.seconds.toFixed(1).padStart(7)} s  ${r.file}`);
  lines.push('[test] per project (files, summed seconds):');
  for (const [name, p] of [...projects].sort((a, b) => b[1].seconds - a[1].seconds))
    lines.push(
      `[test]   ${name.padEnd(12)} ${String(p.files).padStart(3)} files ${p.seconds.toFixed(0).padStart(6)} s`,
    );
  return lines.join('\n');
}

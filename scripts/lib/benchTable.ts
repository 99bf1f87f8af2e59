/**
 * The one table `npm run bench` ends with: each measure beside the raw baseline measured in the
 * same run (so a slow, shared machine slows both and the ratio still means something) and the
 * goal (docs/benchmarks.md). Also written as JSON to .bench/latest-<engine>.json (git-ignored) so a later run,
 * or CI, can compare without parsing the text.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface Measure {
  name: string;
  ours: number;
  /** The raw floor measured in the same run; null when the measure has none. */
  baseline: number | null;
  /** ours / baseline; null without a baseline. */
  ratio: number | null;
  goal: string;
  /** null: a figure reported beside the goals (a point of a curve), with no goal of its own. */
  met: boolean | null;
}

export class BenchTable {
  readonly measures: Measure[] = [];

  add(m: Omit<Measure, 'ratio'> & { ratio?: number | null }): void {
    const ratio = m.ratio !== undefined ? m.ratio : m.baseline ? m.ours / m.baseline : null;
    // Spelled out so the JSON's keys come in the table's order.
    this.measures.push({
      name: m.name,
      ours: round(m.ours),
      baseline: m.baseline === null ? null : round(m.baseline),
      ratio: ratio === null ? null : round(ratio),
      goal: m.goal,
      met: m.met,
    });
  }

  render(): string {
    const head = ['measure', 'ours', 'baseline', 'ratio', 'goal', 'met'];
    const rows = this.measures.map((m) => [
      m.name,
      String(m.ours),
      m.baseline === null ? '—' : String(m.baseline),
      m.ratio === null ? '—' : String(m.ratio),
      m.goal,
      m.met === null ? '—' : m.met ? 'yes' : 'NO',
    ]);
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    const fmt = (r: string[]) =>
      r
        .map((c, i) => (i === 0 || i === 4 ? c.padEnd(widths[i]) : c.padStart(widths[i])))
        .join('  ')
        .trimEnd();
    return [fmt(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(fmt)].join('\n') + '\n';
  }

  /** Writes {"measures": [...]} to `file`, creating its directory. */
  write(file: string): void {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify({ measures: this.measures }, null, 2) + '\n');
  }
}

/** Two decimals: enough for ms, items/s and ratios, and the JSON stays readable. */
function round(n: number): number {
  return Math.round(n * 100) / 100;
}

/** p-th percentile (nearest rank) of `values`; 0 when empty. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

/** Runs `task` over `n` indexes with `concurrency` at a time; each call's duration (ms) and the wall time. */
export async function timed(
  n: number,
  concurrency: number,
  task: (i: number) => Promise<void>,
): Promise<{ durations: number[]; wallMs: number }> {
  const durations: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, n) }, async () => {
      while (next < n) {
        const i = next++;
        const t = performance.now();
        await task(i);
        durations.push(performance.now() - t);
      }
    }),
  );
  return { durations, wallMs: performance.now() - started };
}

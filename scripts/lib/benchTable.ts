/**
 * The one table `npm run bench` ends with: each measure beside the raw baseline measured in the
 * same run (so a slow, shared machine slows both and the ratio still means something) and the
 * goal (docs/benchmarks.md). Also written as JSON to .bench/latest-<engine>.json (git-ignored),
 * with the host's calibration (scripts/lib/hostCalibration.ts), so a later run, or CI, can compare
 * without parsing the text. A part that failed still has its row (fail()): the table never ends
 * a run shorter than the parts it ran.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { HostCalibration } from './hostCalibration';

export interface Measure {
  name: string;
  /** null: no figure (the part failed before it had one). */
  ours: number | null;
  /** The raw floor measured in the same run; null when the measure has none. */
  baseline: number | null;
  /** ours / baseline; null without a baseline. */
  ratio: number | null;
  goal: string;
  /** null: a figure reported beside the goals (a point of a curve), with no goal of its own. */
  met: boolean | null;
  /**
   * The load generator's requests of the part that failed (timeouts, resets, refused, 5xx:
   * scripts/lib/loadFetch.ts); null where the part sends none.
   */
  errors: number | null;
  /** Why the goal is missed or the figure is partial (the errors by kind, an offered load not reached, a failure); '' when nothing to say. */
  note: string;
}

export class BenchTable {
  readonly measures: Measure[] = [];

  add(
    m: Omit<Measure, 'ratio' | 'ours' | 'errors' | 'note'> & {
      ours: number | null;
      ratio?: number | null;
      errors?: number | null;
      note?: string;
    },
  ): void {
    const ratio =
      m.ratio !== undefined
        ? m.ratio
        : m.baseline && m.ours !== null && Number.isFinite(m.ours)
          ? m.ours / m.baseline
          : null;
    // Spelled out so the JSON's keys come in the table's order.
    this.measures.push({
      name: m.name,
      // NaN (a figure over no sample) as null: JSON has no NaN, and the table shows '—'.
      ours: m.ours === null || !Number.isFinite(m.ours) ? null : round(m.ours),
      baseline: m.baseline === null || !Number.isFinite(m.baseline) ? null : round(m.baseline),
      ratio: ratio === null || !Number.isFinite(ratio) ? null : round(ratio),
      goal: m.goal,
      met: m.met,
      errors: m.errors ?? null,
      note: m.note ?? '',
    });
  }

  /** The row of a part that threw (or was interrupted): no figure, met: false, and why. */
  fail(part: string, reason: string): void {
    this.add({
      name: `${part}: part failed`,
      ours: null,
      baseline: null,
      goal: 'the part ends with its figures',
      met: false,
      note: reason,
    });
  }

  render(): string {
    const head = ['measure', 'ours', 'baseline', 'ratio', 'goal', 'met', 'errors', 'note'];
    const rows = this.measures.map((m) => [
      m.name,
      m.ours === null ? '—' : String(m.ours),
      m.baseline === null ? '—' : String(m.baseline),
      m.ratio === null ? '—' : String(m.ratio),
      m.goal,
      m.met === null ? '—' : m.met ? 'yes' : 'NO',
      m.errors === null ? '—' : String(m.errors),
      // One line per row, whatever the reason's text.
      m.note.replace(/\s+/g, ' '),
    ]);
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    const fmt = (r: string[]) =>
      r
        .map((c, i) => (i === 0 || i === 4 || i === 7 ? c.padEnd(widths[i]) : c.padStart(widths[i])))
        .join('  ')
        .trimEnd();
    return [fmt(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(fmt)].join('\n') + '\n';
  }

  /** Writes {"calibration": {...}, "measures": [...]} to `file`, creating its directory. */
  write(file: string, calibration?: HostCalibration): void {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(
      file,
      JSON.stringify({ calibration: calibration ?? null, measures: this.measures }, null, 2) + '\n',
    );
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

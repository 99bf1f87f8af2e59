/** The bench's summary table: ratio, rounding, null baselines, the JSON shape CI reads. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BenchTable, percentile } from '../../scripts/lib/benchTable';

describe('BenchTable', () => {
  it('computes ours/baseline, keeps null without a baseline, and writes {"measures": [...]} in the table order', () => {
    const table = new BenchTable();
    table.add({ name: 'throughput (items/s)', ours: 30, baseline: 90, goal: '≥ 0.6 × baseline', met: false });
    table.add({ name: 'peak RSS (MiB)', ours: 321.456, baseline: null, goal: '< 400 MiB', met: true });
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-')), '.bench', 'latest.json');
    table.write(file);
    const json = JSON.parse(fs.readFileSync(file, 'utf8')) as { measures: Record<string, unknown>[] };
    expect(json.measures).toEqual([
      { name: 'throughput (items/s)', ours: 30, baseline: 90, ratio: 0.33, goal: '≥ 0.6 × baseline', met: false },
      { name: 'peak RSS (MiB)', ours: 321.46, baseline: null, ratio: null, goal: '< 400 MiB', met: true },
    ]);
    expect(Object.keys(json.measures[0])).toEqual(['name', 'ours', 'baseline', 'ratio', 'goal', 'met']);
  });

  it('renders one aligned row per measure under a header, a missed goal shouted', () => {
    const table = new BenchTable();
    table.add({ name: 'a', ours: 1, baseline: 2, goal: 'g', met: true });
    table.add({ name: 'longer name', ours: 100, baseline: null, goal: 'goal', met: false });
    const lines = table.render().trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^measure\s+ours\s+baseline\s+ratio\s+goal\s+met$/);
    expect(lines[2]).toMatch(/^a\s+1\s+2\s+0\.5\s+g\s+yes$/);
    expect(lines[3]).toMatch(/^longer name\s+100\s+—\s+—\s+goal\s+NO$/);
  });

  it('percentile is nearest-rank', () => {
    expect(percentile([5, 1, 4, 2, 3], 50)).toBe(3);
    expect(
      percentile(
        Array.from({ length: 100 }, (_, i) => i + 1),
        99,
      ),
    ).toBe(99);
    expect(percentile([], 99)).toBe(0);
  });
});

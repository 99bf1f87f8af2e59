/** The bench's summary table: ratio, rounding, null baselines, the JSON shape CI reads. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BenchTable, percentile } from '../../scripts/lib/benchTable';
import { CALIBRATION_LOOP } from '../../scripts/lib/hostCalibration';

describe('BenchTable', () => {
  it('computes ours/baseline, keeps null without a baseline, and writes {"measures": [...]} in the table order', () => {
    const table = new BenchTable();
    table.add({ name: 'throughput (items/s)', ours: 30, baseline: 90, goal: '≥ 0.6 × baseline', met: false });
    table.add({ name: 'peak RSS (MiB)', ours: 321.456, baseline: null, goal: '< 400 MiB', met: true });
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-')), '.bench', 'latest.json');
    table.write(file);
    const json = JSON.parse(fs.readFileSync(file, 'utf8')) as {
      calibration: unknown;
      measures: Record<string, unknown>[];
    };
    expect(json.calibration).toBeNull();
    expect(json.measures).toEqual([
      {
        name: 'throughput (items/s)',
        ours: 30,
        baseline: 90,
        ratio: 0.33,
        goal: '≥ 0.6 × baseline',
        met: false,
        errors: null,
        note: '',
      },
      {
        name: 'peak RSS (MiB)',
        ours: 321.46,
        baseline: null,
        ratio: null,
        goal: '< 400 MiB',
        met: true,
        errors: null,
        note: '',
      },
    ]);
    expect(Object.keys(json.measures[0])).toEqual([
      'name',
      'ours',
      'baseline',
      'ratio',
      'goal',
      'met',
      'errors',
      'note',
    ]);
  });

  it('renders one aligned row per measure under a header, a missed goal shouted', () => {
    const table = new BenchTable();
    table.add({ name: 'a', ours: 1, baseline: 2, goal: 'g', met: true });
    table.add({ name: 'longer name', ours: 100, baseline: null, goal: 'goal', met: false });
    const lines = table.render().trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^measure\s+ours\s+baseline\s+ratio\s+goal\s+met\s+errors\s+note$/);
    expect(lines[2]).toMatch(/^a\s+1\s+2\s+0\.5\s+g\s+yes\s+—$/);
    expect(lines[3]).toMatch(/^longer name\s+100\s+—\s+—\s+goal\s+NO\s+—$/);
  });

  it('keeps the load errors and the note on a row, and writes the host calibration beside the measures', () => {
    const table = new BenchTable();
    table.add({
      name: 'creates (creates/s)',
      ours: 10,
      baseline: 20,
      goal: 'g',
      met: false,
      errors: 3,
      note: '3 timeout',
    });
    expect(table.render()).toMatch(/creates \(creates\/s\)\s+10\s+20\s+0\.5\s+g\s+NO\s+3\s+3 timeout\n/);
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-')), 'latest.json');
    const calibration = {
      loop: CALIBRATION_LOOP,
      medianMs: 210,
      runsMs: [200, 210, 220, 205, 215],
      cpuModel: 'x',
      cores: 2,
      node: 'v20',
    };
    table.write(file, calibration);
    const json = JSON.parse(fs.readFileSync(file, 'utf8')) as { calibration: unknown; measures: unknown[] };
    expect(json.calibration).toEqual(calibration);
    expect(json.measures).toEqual([expect.objectContaining({ errors: 3, note: '3 timeout' })]);
  });

  it('gives a part that failed its row: no figure, met: false, and why; a figure over no sample shows as none', () => {
    const table = new BenchTable();
    table.fail('webhooks', 'webhook registration failed: 503');
    table.add({ name: 'p99 (ms)', ours: NaN, baseline: 4, goal: 'g', met: false });
    expect(table.measures).toEqual([
      {
        name: 'webhooks: part failed',
        ours: null,
        baseline: null,
        ratio: null,
        goal: 'the part ends with its figures',
        met: false,
        errors: null,
        note: 'webhook registration failed: 503',
      },
      { name: 'p99 (ms)', ours: null, baseline: 4, ratio: null, goal: 'g', met: false, errors: null, note: '' },
    ]);
    expect(table.render()).toMatch(
      /webhooks: part failed\s+—\s+—\s+—\s+the part ends with its figures\s+NO\s+—\s+webhook registration failed: 503/,
    );
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

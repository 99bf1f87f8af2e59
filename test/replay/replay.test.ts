/**
 * Determinism guard: every history under test/replay/histories/<workflowType>/ (captured from
 * real runs by `npm run capture-histories`) is replayed against the current workflow code with
 * Worker.runReplayHistories. A change that would make a running workflow take a different path
 * (a new activity, a reordered timer, a removed branch) fails here instead of in production,
 * where charge runs live for days. See docs/architecture.md, "Workflow history".
 */
import fs from 'node:fs';
import path from 'node:path';
import { temporal as proto } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { quietTemporalRuntime } from '../support/integrationStack';
import { workflowBundle } from '../support/workflowBundle';
import * as workflows from '../../workflows';

jest.setTimeout(180_000);

const historiesDir = path.join(__dirname, 'histories');

function historyFiles(): Array<{ type: string; file: string }> {
  if (!fs.existsSync(historiesDir)) return [];
  return fs
    .readdirSync(historiesDir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) =>
      fs
        .readdirSync(path.join(historiesDir, d.name))
        .filter((f) => f.endsWith('.json'))
        .map((f) => ({ type: d.name, file: path.join(historiesDir, d.name, f) })),
    )
    .sort((a, b) => a.file.localeCompare(b.file));
}

const files = historyFiles();

it('has at least one history for every workflow type the worker runs', () => {
  const captured = new Set(files.map((f) => f.type));
  const missing = Object.keys(workflows).filter((type) => !captured.has(type));
  // A new workflow type: add a scenario to scripts/captureHistories.ts and run it.
  expect(missing).toEqual([]);
});

it('replays every captured history with the current workflow code', async () => {
  quietTemporalRuntime();
  // The run's one bundle of the current workflow code (the one every test worker runs).
  const bundle = await workflowBundle();
  const histories = files.map(({ file }) => {
    // Written by scripts/captureHistories.ts: History.toObject plus the run's workflowId, which
    // replay must reuse (a batch derives its chunks' workflow ids from its own).
    const json = JSON.parse(fs.readFileSync(file, 'utf8')) as { workflowId: string };
    return { workflowId: json.workflowId, history: proto.api.history.v1.History.fromObject(json) };
  });
  const names = new Map(files.map(({ type, file }, i) => [i, `${type}/${path.basename(file, '.json')}`]));
  const failures: string[] = [];
  let replayed = 0;
  for await (const result of Worker.runReplayHistories({ workflowBundle: bundle }, histories)) {
    // Results come back in input order, one per history.
    if (result.error)
      failures.push(`${names.get(replayed)} (${result.workflowId}): ${result.error.name}: ${result.error.message}`);
    replayed++;
  }
  expect(failures).toEqual([]);
  expect(replayed).toBe(files.length);
});

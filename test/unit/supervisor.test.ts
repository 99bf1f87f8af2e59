/**
 * The supervisor behind `npm start`: a crashed service is restarted after a growing backoff with a
 * log line, and stop() ends the running child and every pending restart. Real child processes.
 */
import { spawn } from 'node:child_process';
import { supervise } from '../../scripts/lib/supervisor';
import { processAlive } from '../support/processAlive';

jest.setTimeout(120_000);

const node = (code: string) => () => spawn(process.execPath, ['-e', code], { stdio: 'ignore' });

it('restarts a child that exits, with a doubling backoff and a log line each time', async () => {
  const lines: string[] = [];
  let spawned = 0;
  const service = supervise({
    name: 'worker',
    start: () => {
      spawned++;
      return node('process.exit(3)')();
    },
    log: (l) => lines.push(l),
    backoff: { initialMs: 50, maxMs: 200, resetAfterMs: 10_000 },
  });
  const deadline = Date.now() + 10_000;
  while (spawned < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  await service.stop();
  expect(spawned).toBeGreaterThanOrEqual(4);
  expect(lines.slice(0, 3)).toEqual([
    'worker exited with code 3; restarting in 50 ms (restart 1)',
    'worker exited with code 3; restarting in 100 ms (restart 2)',
    'worker exited with code 3; restarting in 200 ms (restart 3)',
  ]);
  const after = spawned;
  await new Promise((r) => setTimeout(r, 400));
  expect(spawned).toBe(after); // stopped: no restart is pending
});

it('stop() ends a running child and does not restart it', async () => {
  const lines: string[] = [];
  let pid = 0;
  const service = supervise({
    name: 'api',
    start: () => {
      const child = node('setInterval(() => {}, 1000)')();
      pid = child.pid!;
      return child;
    },
    log: (l) => lines.push(l),
    backoff: { initialMs: 50, maxMs: 200, resetAfterMs: 10_000 },
  });
  await new Promise((r) => setTimeout(r, 200));
  expect(processAlive(pid)).toBe(true);
  await service.stop();
  expect(processAlive(pid)).toBe(false);
  await new Promise((r) => setTimeout(r, 200));
  expect(lines).toEqual([]);
});

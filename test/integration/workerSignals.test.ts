/**
 * The worker process stops once whatever signals arrive: Ctrl-C in `npm start` sends SIGINT to
 * the whole process group and the supervisor then sends SIGTERM, so a worker gets both (and an
 * impatient operator presses Ctrl-C again). It must drain, close and exit 0, never call
 * `worker.shutdown()` twice (`IllegalStateError: Not running. Current state: DRAINING`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { waitFor } from '../support/env';
import { startIntegrationStack, type IntegrationStack } from '../support/integrationStack';
import { testLogDir } from '../support/testLogs';
import { killHard, spawnWorkerProcess, type WorkerProcess } from '../support/workerProcess';

jest.setTimeout(120_000);

let stack: IntegrationStack;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  stack = await startIntegrationStack({ inProcessWorker: false });
});

afterAll(async () => {
  for (const w of workers) await killHard(w);
  await stack?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const read = (file: string | undefined) => (file && fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '');

/** The worker's own pino lines (core/logger.ts writes one file per process in the run's log directory). */
function pinoLog(child: WorkerProcess): string {
  const dir = testLogDir();
  if (!dir) throw new Error('run with `npm test` (scripts/test.ts): the worker logs into GATEWAY_TEST_LOG_DIR');
  return read(path.join(dir, `pino-${child.pid}.log`));
}

function exited(child: WorkerProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null)
      return resolve({ code: child.exitCode, signal: child.signalCode });
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
}

it('stops once, drains and exits 0 on SIGINT, SIGTERM and SIGINT again', async () => {
  const worker = spawnWorkerProcess(stack.workerEnv);
  workers.push(worker);
  const exit = exited(worker);
  await waitFor(async () => pinoLog(worker).includes('"worker started"'), 'the worker to start', 90_000);

  // As `npm start` does on Ctrl-C: the group's SIGINT and the supervisor's SIGTERM together, then
  // another Ctrl-C. Together: the second arrives while the first one's drain is still going on.
  worker.kill('SIGINT');
  worker.kill('SIGTERM');
  await sleep(100);
  worker.kill('SIGINT');

  const { code, signal } = await exit;
  const output = `${read(worker.outputFile)}\n${pinoLog(worker)}`;
  expect({ code, signal, illegalState: output.includes('IllegalStateError') }).toEqual({
    code: 0,
    signal: null,
    illegalState: false,
  });
  expect(pinoLog(worker)).toContain('"worker stopped"');
});

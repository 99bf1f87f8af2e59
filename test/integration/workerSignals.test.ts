/**
 * The worker process stops once whatever signals arrive: Ctrl-C in `npm start` sends SIGINT to
 * the whole process group and the supervisor then sends SIGTERM, so a worker gets both (and an
 * impatient operator presses Ctrl-C again). It must drain, close and exit 0, never call
 * `worker.shutdown()` twice (`IllegalStateError: Not running. Current state: DRAINING`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { waitFor } from '../support/env';
import { startIntegrationStack, type IntegrationStack } from '../support/integrationStack';
import { testLogDir } from '../support/testLogs';
import crypto from 'node:crypto';
import { PayoutItem } from '../../db/models';
import {
  fundByPaidCharge,
  items,
  payoutMerchant,
  sandboxTransfers,
  setFaults,
  signedCall,
  waitForBatchEnd,
} from '../support/payouts';
import { killHard, spawnWorkerProcess, type WorkerProcess } from '../support/workerProcess';

jest.setTimeout(120_000);

let stack: IntegrationStack;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  stack = await startIntegrationStack({ inProcessWorker: false });
});

afterAll(async () => {
  if (stack) await setFaults(stack, null);
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

it('stops once and exits 0 on SIGINT, SIGTERM and SIGINT together', async () => {
  const worker = spawnWorkerProcess(stack.workerEnv);
  workers.push(worker);
  const exit = exited(worker);
  await waitFor(async () => pinoLog(worker).includes('"worker started"'), 'the worker to start', 90_000);

  // As `npm start` does on Ctrl-C: the group's SIGINT and the supervisor's SIGTERM, and another
  // Ctrl-C, together: they arrive while the first one's drain is still going on.
  worker.kill('SIGINT');
  worker.kill('SIGTERM');
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

/** A workflow of this stack with a payItems activity running (started, not finished). */
async function payItemsInFlight(): Promise<{ workflowId: string; activityId: string } | undefined> {
  const query = `TaskQueue = '${stack.taskQueue}' AND ExecutionStatus = 'Running'`;
  for await (const wf of stack.temporal.workflow.list({ query })) {
    const described = await stack.temporal.workflow.getHandle(wf.workflowId).describe();
    const running = (described.raw.pendingActivities ?? []).find(
      (a) =>
        a.activityType?.name === 'payItems' &&
        a.state === temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED,
    );
    if (running) return { workflowId: wf.workflowId, activityId: String(running.activityId) };
  }
  return undefined;
}

it('lets the activity in flight finish before it exits', async () => {
  const worker = spawnWorkerProcess(stack.workerEnv);
  workers.push(worker);
  const exit = exited(worker);
  await waitFor(async () => pinoLog(worker).includes('"worker started"'), 'the worker to start', 90_000);
  const m = await payoutMerchant(stack, { feeCents: 0 });
  await fundByPaidCharge(stack, m, 10_000);
  // Every provider call takes 2 s: the payout's payItems is still running when the signals come.
  await setFaults(stack, { latencyMs: 2_000 });
  const created = await signedCall(stack, m, 'POST', '/v1/payouts/batches', {
    idempotencyKey: `drain-${crypto.randomUUID()}`,
    items: items(1, { amountCents: 1_000 }),
  });
  expect(created.status).toBe(201);
  const batchId = created.body.batchId as string;
  const inFlight = await waitFor(payItemsInFlight, 'payItems to be running', 90_000);

  worker.kill('SIGINT');
  worker.kill('SIGTERM');
  // Ctrl-C again while it drains (a provider call of 2 s to finish).
  await sleep(200);
  if (!pinoLog(worker).includes('"worker stopped"')) worker.kill('SIGINT');
  const { code, signal } = await exit;
  expect({ code, signal }).toEqual({ code: 0, signal: null });

  // Finished by the stopping worker itself, in its first attempt, before any other worker ran.
  const events = (await stack.temporal.workflow.getHandle(inFlight.workflowId).fetchHistory()).events ?? [];
  const scheduled = events.find((e) => e.activityTaskScheduledEventAttributes?.activityId === inFlight.activityId);
  const of = (id: unknown) => String(id) === String(scheduled?.eventId);
  const started = events.find((e) => of(e.activityTaskStartedEventAttributes?.scheduledEventId));
  const completed = events.find((e) => of(e.activityTaskCompletedEventAttributes?.scheduledEventId));
  expect({ completed: completed !== undefined, attempt: started?.activityTaskStartedEventAttributes?.attempt }).toEqual(
    {
      completed: true,
      attempt: 1,
    },
  );

  // The next worker finishes the batch: the item paid once.
  await setFaults(stack, null);
  workers.push(spawnWorkerProcess(stack.workerEnv));
  expect(await waitForBatchEnd(stack, m, batchId, 90_000)).toMatchObject({ status: 'COMPLETED', paidItems: 1 });
  const [item] = await PayoutItem.findAll({ where: { batchId } });
  expect((await sandboxTransfers(stack))[item.id]?.created).toBe(1);
});

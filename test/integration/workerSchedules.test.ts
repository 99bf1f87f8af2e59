/**
 * The Schedules every worker creates at start (janitor, daily reconciliation, MED sync, Pix payment sweep,
 * connected accounts' balance reading) belong to
 * its task queue, like the outbox dispatcher: a second deployment (another task queue) in the
 * same namespace gets its own, and a schedule never starts its runs on another deployment's
 * queue. Found as a flake of the parallel suite: a worker process spawned by another
 * test file had created the one `med-infraction-sync` first, so the MED test's triggered sync ran
 * on that file's task queue and never reached its own database.
 */
import crypto from 'node:crypto';
import type { Client } from '@temporalio/client';
import { ensureJanitorSchedule } from '../../workers/ensureJanitorSchedule';
import { ensureMedSyncSchedule } from '../../workers/ensureMedSyncSchedule';
import { ensureReconciliationSchedule } from '../../workers/ensureReconciliationSchedule';
import { janitorScheduleId } from '../../workflows/transfers/definitions';
import { medSyncScheduleId } from '../../workflows/med/definitions';
import { dailyReconciliationScheduleId } from '../../workers/ensureReconciliationSchedule';
import { ensurePixSweepSchedule } from '../../workers/ensurePixSweepSchedule';
import { pixSweepScheduleId } from '../../workflows/charges/sweep/definitions';
import { ensureBalanceReadingSchedule } from '../../workers/ensureBalanceReadingSchedule';
import { balanceReadingScheduleId } from '../../workflows/connections/definitions';
import { sharedIntegrationStack, type SharedStack } from '../support/sharedStack';

jest.setTimeout(120_000);

let stack: SharedStack;

beforeAll(async () => {
  stack = await sharedIntegrationStack();
});

afterAll(async () => {
  await stack?.stop();
});

const schedules: Array<{
  name: string;
  ensure: (client: Client, taskQueue: string) => Promise<void>;
  id: (taskQueue: string) => string;
}> = [
  { name: 'janitor', ensure: ensureJanitorSchedule, id: janitorScheduleId },
  { name: 'daily reconciliation', ensure: ensureReconciliationSchedule, id: dailyReconciliationScheduleId },
  {
    name: 'MED sync',
    ensure: (client, taskQueue) =>
      ensureMedSyncSchedule(client, taskQueue, { analysisDeadlineMs: 7 * 86_400_000, reminderBeforeMs: 86_400_000 }),
    id: medSyncScheduleId,
  },
  { name: 'Pix payment sweep', ensure: ensurePixSweepSchedule, id: pixSweepScheduleId },
  { name: 'balance reading', ensure: ensureBalanceReadingSchedule, id: balanceReadingScheduleId },
];

it.each(schedules)(
  'the $name Schedule of each task queue starts its runs on that task queue',
  async ({ ensure, id }) => {
    const queues = [`deploy-a-${crypto.randomUUID()}`, `deploy-b-${crypto.randomUUID()}`];
    try {
      for (const taskQueue of queues) {
        await ensure(stack.temporal, taskQueue);
        await ensure(stack.temporal, taskQueue); // idempotent at every boot
      }
      expect(id(queues[0])).not.toBe(id(queues[1]));
      for (const taskQueue of queues) {
        const described = await stack.temporal.schedule.getHandle(id(taskQueue)).describe();
        expect(described.action).toMatchObject({ type: 'startWorkflow', taskQueue });
      }
    } finally {
      for (const taskQueue of queues)
        await stack.temporal.schedule
          .getHandle(id(taskQueue))
          .delete()
          .catch(() => undefined);
    }
  },
);

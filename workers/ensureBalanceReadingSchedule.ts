/**
 * Creates the Temporal Schedule of the connected accounts' balance reading unless it exists
 * (idempotent at every boot): every minute, a pspBalanceReading run on this task queue, so a
 * connected merchant's dashboard shows its PSP saldo at most about a minute old. One per task
 * queue, like the other schedules; a pause made in the Web UI is kept, since an existing schedule
 * is left as it is.
 */
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { balanceReadingScheduleId, pspBalanceReadingWorkflow } from '../workflows/connections/definitions';
import { scheduleAction } from '../core/temporal/workflows';

export async function ensureBalanceReadingSchedule(client: Client, taskQueue: string): Promise<void> {
  try {
    await client.schedule.create({
      scheduleId: balanceReadingScheduleId(taskQueue),
      spec: { intervals: [{ every: '1 minute' }] },
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
      action: scheduleAction(pspBalanceReadingWorkflow, {
        workflowId: balanceReadingScheduleId(taskQueue),
        taskQueue,
        args: [],
      }),
    });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
}

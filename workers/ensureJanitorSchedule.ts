/**
 * Creates the janitor's Temporal Schedule unless it exists (idempotent at every boot). An
 * operator sees it, pauses it or triggers it from the Web UI (Schedules); a pause made there is
 * kept, since an existing schedule is left as it is.
 */
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { janitorEvery, janitorScheduleId } from '../workflows/transfers/definitions';

export async function ensureJanitorSchedule(client: Client, taskQueue: string): Promise<void> {
  try {
    await client.schedule.create({
      scheduleId: janitorScheduleId(taskQueue),
      spec: { intervals: [{ every: janitorEvery }] },
      // One run at a time: a slow run is never doubled by the next tick.
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
      action: {
        type: 'startWorkflow',
        workflowType: 'janitor',
        workflowId: janitorScheduleId(taskQueue),
        taskQueue,
        args: [],
      },
    });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
}

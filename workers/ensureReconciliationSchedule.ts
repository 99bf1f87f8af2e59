/**
 * Creates the daily reconciliation's Temporal Schedule unless it exists (idempotent at every
 * boot): 04:00 in America/Sao_Paulo, reconciling the day before. A pause made in the Web UI is
 * kept, since an existing schedule is left as it is.
 */
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { dailyReconciliationWorkflow } from '../workflows/reconciliations/definitions';
import { scheduleAction } from '../core/temporal/workflows';

/** One per task queue (deployment), like the outbox dispatcher: its runs go to that queue's workers. */
export const dailyReconciliationScheduleId = (taskQueue: string) => `daily-reconciliation-${taskQueue}`;

export async function ensureReconciliationSchedule(client: Client, taskQueue: string): Promise<void> {
  try {
    await client.schedule.create({
      scheduleId: dailyReconciliationScheduleId(taskQueue),
      spec: { calendars: [{ hour: 4, minute: 0 }], timezone: 'America/Sao_Paulo' },
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
      action: scheduleAction(dailyReconciliationWorkflow, {
        workflowId: dailyReconciliationScheduleId(taskQueue),
        taskQueue,
        args: [],
      }),
    });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
}

/**
 * Creates the sweep for lost payment notifications' Temporal Schedule unless it exists
 * (idempotent at every boot): every minute, a pixPaymentSweep run on this task queue, so a paid
 * charge whose notification never came settles within two minutes. One per task queue, like the
 * other schedules; a pause made in the Web UI is kept, since an existing schedule is left as it is.
 */
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { PIX_SWEEP_LOOKBACK_MS, pixSweepScheduleId } from '../workflows/charges/sweep/definitions';

export async function ensurePixSweepSchedule(client: Client, taskQueue: string): Promise<void> {
  try {
    await client.schedule.create({
      scheduleId: pixSweepScheduleId(taskQueue),
      spec: { intervals: [{ every: '1 minute' }] },
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
      action: {
        type: 'startWorkflow',
        workflowType: 'pixPaymentSweep',
        workflowId: pixSweepScheduleId(taskQueue),
        taskQueue,
        args: [{ lookbackMs: PIX_SWEEP_LOOKBACK_MS }],
      },
    });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
}

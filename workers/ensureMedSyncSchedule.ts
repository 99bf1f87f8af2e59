/**
 * Creates the Pix infraction (MED) sync's Temporal Schedule unless it exists (idempotent at
 * every boot): every 15 minutes, the same medInfractionSync workflow POST /med/infractions/sync
 * runs. A pause made in the Web UI is kept, since an existing schedule is left as it is.
 */
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { medInfractionSyncWorkflow, medSyncScheduleId } from '../workflows/med/definitions';
import { reminderBeforeMs } from '../workflows/med/types';
import { scheduleAction } from '../core/temporal/workflows';

export async function ensureMedSyncSchedule(
  client: Client,
  taskQueue: string,
  settings: { analysisDeadlineMs: number; reminderBeforeMs: number },
): Promise<void> {
  try {
    await client.schedule.create({
      scheduleId: medSyncScheduleId(taskQueue),
      spec: { intervals: [{ every: '15 minutes' }] },
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
      action: scheduleAction(medInfractionSyncWorkflow, {
        workflowId: medSyncScheduleId(taskQueue),
        taskQueue,
        args: [
          {
            merchantId: null,
            analysisDeadlineMs: settings.analysisDeadlineMs,
            reminderBeforeMs: reminderBeforeMs(settings.analysisDeadlineMs, settings.reminderBeforeMs),
          },
        ],
      }),
    });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
}

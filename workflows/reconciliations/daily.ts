/**
 * The daily reconciliation (Temporal Schedule `daily-reconciliation`, 04:00 Brasília, visible and
 * pausable in the Web UI): reconciles yesterday (Brasília) for every merchant the day touched at
 * the platform's account, and for every active PSP connection (a connected merchant's own
 * account, its saldo compared every day), one child `reconciliation` workflow per report row.
 */
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { ReconciliationActivities } from '../../activities/reconciliations';
import { executeChildOf } from '../children';
import { reconciliationWorkflow } from './definitions';
import { reconciliationWorkflowId } from './types';

const acts = proxyActivities<ReconciliationActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5 },
});

/** Brasília's calendar day before `now` (no daylight saving since 2019). */
export function brasiliaYesterday(now: Date): string {
  return new Date(now.getTime() - 3 * 3_600_000 - 86_400_000).toISOString().slice(0, 10);
}

export async function dailyReconciliation(
  args: { day?: string } = {},
): Promise<{ day: string; reconciliationIds: string[] }> {
  const day = args.day ?? brasiliaYesterday(new Date(workflowInfo().runStartTime));
  const reconciliationIds = await acts.prepareDailyReconciliations({ day });
  for (const reconciliationId of reconciliationIds) {
    try {
      await executeChildOf(reconciliationWorkflow, {
        workflowId: reconciliationWorkflowId(reconciliationId),
        args: [{ reconciliationId }],
      });
    } catch {
      // Already run (a retried daily run) or failed: its row says so; the others go on.
    }
  }
  return { day, reconciliationIds };
}

/**
 * pixPaymentSweep: one pass of the sweep for lost payment notifications (activities/charges/pixSweep.ts),
 * started every minute by the Schedule `pix-payment-sweep-<task queue>`. A failed pass is not
 * retried for long: the next minute's pass reads the same window.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { PixSweepActivities } from '../../../activities/charges';
import type { PixSweepResult } from '../../../activities/charges/pixSweep';

const acts = proxyActivities<PixSweepActivities>({
  startToCloseTimeout: '50 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumAttempts: 3 },
});

export async function pixPaymentSweep(input: { lookbackMs: number }): Promise<PixSweepResult> {
  return acts.sweepReceivedPix(input);
}

/**
 * pspBalanceReading: one pass of the reading of every connected account's balance
 * (activities/connections/balances.ts), started every minute by the Schedule
 * `psp-balance-reading-<task queue>` (workers/ensureBalanceReadingSchedule.ts). A failed pass is
 * not retried for long: the next minute's pass reads again, and meanwhile the last readings stand
 * with their read_at.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { ConnectionActivities } from '../../activities/connections';
import type { BalanceReadingResult } from './types';

const acts = proxyActivities<ConnectionActivities>({
  // Two or three PSP requests per connection, each within PROVIDER_TIMEOUT_MS.
  startToCloseTimeout: '50 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumAttempts: 3 },
});

export async function pspBalanceReading(): Promise<BalanceReadingResult> {
  return acts.readConnectionBalances();
}

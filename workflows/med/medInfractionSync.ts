/**
 * medInfractionSync: pulls the provider's Pix infractions and starts a medInfraction workflow
 * for each open one (activities/med/sync.ts syncMedInfractions). Run by POST /med/infractions/sync and
 * by the Temporal Schedule `med-infraction-sync` (every 15 minutes).
 */
import { proxyActivities } from '@temporalio/workflow';
import type { MedActivities } from '../../activities/med';
import type { MedSyncInput, MedSyncResult } from './types';

const acts = proxyActivities<MedActivities>({
  startToCloseTimeout: '2 minutes',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 5,
    nonRetryableErrorTypes: ['MedUnsupported'],
  },
});

export async function medInfractionSync(input: MedSyncInput): Promise<MedSyncResult> {
  return acts.syncMedInfractions(input);
}

/**
 * SentPixNotice (id `sent-pix-<idEnvio>`, started by the API for each entry of a PSP notification
 * about a Pix we sent): reads the PSP's record of the send and acts on it (activities/transfers/
 * sentPix/). The notice itself moves no money. Retries with backoff while the PSP does not
 * answer or the send is still processing; a conflict (a return of a send we did not pay) fails
 * the run for a person, visible in the Web UI.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { SentPixActivities } from '../../activities/transfers/sentPix';
import type { SentPixOutcome } from '../../activities/transfers/sentPix/follow';

const { followSentPix } = proxyActivities<SentPixActivities>({
  startToCloseTimeout: '1 minute',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '5 minutes',
    maximumAttempts: 40,
    nonRetryableErrorTypes: ['SentPixConflict', 'TransferMismatch'],
  },
});

export interface SentPixNoticeInput {
  idEnvio: string;
  /** The notice's ISO 20022 reason of a NAO_REALIZADO (a label; the record decides the money). */
  reason?: string | null;
}

export async function sentPixNotice(input: SentPixNoticeInput): Promise<{ outcome: SentPixOutcome; credited: number }> {
  return followSentPix({ idEnvio: input.idEnvio, reason: input.reason ?? null });
}

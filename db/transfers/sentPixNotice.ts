/**
 * Which send notices need a run of their own (sentPixNotice, which reads the PSP's record and
 * acts on it) and which are answered at once because no run could change anything.
 *
 * What a run does with a notice (activities/transfers/sentPix/follow.ts): it credits a return,
 * refines a refusal's reason, or repairs a send whose workflow is gone. A notice that reports
 * neither a return (`devolucoes`) nor a refusal's reason therefore needs a run only when its
 * send may need repair: a send settled here (paid) needs none, and neither does a send whose own
 * workflow is running, since that workflow reads the outcome itself. Answering those two without a
 * run saves a workflow per send, which at Efí is every send's notice. The notice's content still
 * moves no money: at most it sends the notice to the run that reads the record. Every other notice
 * (a return, a reason, a send released here, a refund, a send whose workflow is gone) gets its run.
 */
import type { Client } from '@temporalio/client';
import { workflowRunning } from '../../core/temporal/workflows';
import { ownerWorkflowId, sendOwnerOf } from './sendOwner';

export interface SentPixNotice {
  idEnvio: string;
  /** The notice's ISO 20022 reason of a NAO_REALIZADO, when well formed. */
  reason: string | null;
  /** The notice names returns (Efí's `devolucoes`, when present and not empty). */
  reportsReturn: boolean;
}

/** What a notice that needs no run is answered: its send is settled here, or its workflow runs. */
export type RunlessAnswer = 'SENT_PIX_SETTLED' | 'SENT_PIX_LEFT_TO_ITS_WORKFLOW';

/**
 * The answer for a notice no run could act on, or null when it needs its run. `reference`: the
 * transfer its idEnvio names (referenceOfIdEnvio, checked by the caller). `merchantId`: the
 * connection the notice came through, if a merchant's own; a send of another merchant gets its
 * run, so the answer never tells one merchant anything about another's send.
 */
export async function runlessAnswer(
  temporal: Client,
  reference: string,
  notice: SentPixNotice,
  merchantId: string | null,
): Promise<RunlessAnswer | null> {
  if (notice.reportsReturn || notice.reason) return null;
  const owner = await sendOwnerOf(reference);
  if (!owner || (merchantId !== null && owner.merchantId !== merchantId)) return null;
  if (owner.settled) return 'SENT_PIX_SETTLED';
  if (owner.reserved && (await workflowRunning(temporal, ownerWorkflowId(owner))))
    return 'SENT_PIX_LEFT_TO_ITS_WORKFLOW';
  return null;
}

/**
 * The PSP's Pix Automático notifications (webhookrec, webhookcobr) turned into signals: each id a
 * notice names is looked up here (the rec's subscription, the cobr's cycle) and its subscription's
 * workflow is told to read the PSP (recurrenceNotice / cycleNotice). A notice is only a reason to
 * read: the workflow acts on GET /rec and GET /cobr alone, so a forged one costs a read. An id of
 * no subscription of ours, or of one whose workflow has ended, is logged (the id only) and
 * answered all the same, so the PSP stops retrying it. Run by the API's notification routes: the
 * platform's (any subscription) and each merchant connection's (that merchant's only: `scope`).
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Logger } from 'pino';
import type { Sequelize } from 'sequelize';
import type { CycleChargeClaim, RecurrenceClaim } from '../../core/pixAutomatico/notifications';
import { workflowHandle } from '../../core/temporal/workflows';
import {
  cycleNoticeSignal,
  recurrenceNoticeSignal,
  subscriptionLifecycleWorkflow,
  subscriptionWorkflowId,
} from '../../workflows/subscriptions/definitions';
import { findByRecId, findCycleByTxid, findSubscription } from './subscriptionStore';

/**
 * SIGNALLED: its workflow will read the PSP · UNKNOWN: no subscription of ours · ENDED: its workflow
 * is not running · NOT_THIS_CONNECTION: on a connection's URL, a subscription of another merchant's.
 */
export const noticeOutcomes = ['SIGNALLED', 'UNKNOWN', 'ENDED', 'NOT_THIS_CONNECTION'] as const;
export type NoticeOutcome = (typeof noticeOutcomes)[number];

export interface NoticeDeps {
  sequelize: Sequelize;
  temporal: Client;
  logger: Logger;
}

/**
 * Whose subscriptions a notice may reach: on a merchant connection's URL (the connected model),
 * that merchant's only; on the platform's URL, any (`null`).
 */
export type NoticeScope = { merchantId: string } | null;

export async function noticeRecurrences(
  deps: NoticeDeps,
  claims: RecurrenceClaim[],
  scope: NoticeScope = null,
): Promise<{ idRec: string; outcome: NoticeOutcome }[]> {
  const outcomes: { idRec: string; outcome: NoticeOutcome }[] = [];
  for (const claim of claims) {
    const row = await findByRecId(deps.sequelize, claim.idRec);
    const outcome = !row
      ? unknown(deps, { idRec: claim.idRec })
      : outOfScope(scope, row.merchantId)
        ? notThisConnection(deps, { idRec: claim.idRec })
        : await signal(deps, row.id, null);
    outcomes.push({ idRec: claim.idRec, outcome });
  }
  return outcomes;
}

export async function noticeCycleCharges(
  deps: NoticeDeps,
  claims: CycleChargeClaim[],
  scope: NoticeScope = null,
): Promise<{ txid: string; outcome: NoticeOutcome }[]> {
  const outcomes: { txid: string; outcome: NoticeOutcome }[] = [];
  for (const claim of claims) {
    const cycle = await findCycleByTxid(deps.sequelize, claim.txid);
    const outcome = !cycle
      ? unknown(deps, { txid: claim.txid })
      : scope && outOfScope(scope, await merchantOf(deps, cycle.subscriptionId))
        ? notThisConnection(deps, { txid: claim.txid })
        : await signal(deps, cycle.subscriptionId, { txid: claim.txid });
    outcomes.push({ txid: claim.txid, outcome });
  }
  return outcomes;
}

async function merchantOf(deps: NoticeDeps, subscriptionId: string): Promise<string | null> {
  return (await findSubscription(deps.sequelize, subscriptionId))?.merchantId ?? null;
}

function outOfScope(scope: NoticeScope, merchantId: string | null): boolean {
  return scope !== null && scope.merchantId !== merchantId;
}

/** recurrenceNotice (`cycle` null) or cycleNotice with the cobr's txid. */
async function signal(
  deps: NoticeDeps,
  subscriptionId: string,
  cycle: { txid: string } | null,
): Promise<NoticeOutcome> {
  const handle = workflowHandle(deps.temporal, subscriptionLifecycleWorkflow, subscriptionWorkflowId(subscriptionId));
  try {
    if (cycle) await handle.signal(cycleNoticeSignal, cycle);
    else await handle.signal(recurrenceNoticeSignal);
    return 'SIGNALLED';
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
    deps.logger.info(
      { subscriptionId },
      'Pix Automático notice for a subscription whose workflow has ended; nothing to do',
    );
    return 'ENDED';
  }
}

/** Answered all the same (the PSP stops retrying), and nothing is signalled: another merchant's subscription. */
function notThisConnection(deps: NoticeDeps, id: { idRec: string } | { txid: string }): NoticeOutcome {
  deps.logger.warn(id, "Pix Automático notice on a connection's URL naming another merchant's subscription; ignored");
  return 'NOT_THIS_CONNECTION';
}

function unknown(deps: NoticeDeps, id: { idRec: string } | { txid: string }): NoticeOutcome {
  deps.logger.warn(id, 'Pix Automático notice naming no subscription of ours; ignored');
  return 'UNKNOWN';
}

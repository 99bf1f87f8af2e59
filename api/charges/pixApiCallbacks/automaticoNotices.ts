/**
 * Pix Automático's notices (webhookrec's `/rec`, webhookcobr's `/cobr`) as both notification URLs
 * take them: the platform's (router.ts, any subscription) and a merchant connection's
 * (api/connections/notifications/router.ts, that merchant's subscriptions only). The body is
 * checked, each valid id looked up and its subscription's workflow signalled by db/subscriptions
 * notices.ts; items naming no valid id are skipped and counted.
 */
import {
  noticeCycleCharges,
  noticeRecurrences,
  type NoticeDeps,
  type NoticeOutcome,
  type NoticeScope,
} from '../../../db/subscriptions';
import { cycleChargeClaimsOf, recurrenceClaimsOf } from '../../../core/pixAutomatico/notifications';
import { parseOrThrow } from '../../validation/validate';
import { cobrNotificationBody, recNotificationBody } from './schema';

export type RecNoticeClaims = NonNullable<ReturnType<typeof recurrenceClaimsOf>>;
export type CobrNoticeClaims = NonNullable<ReturnType<typeof cycleChargeClaimsOf>>;

/** A webhookrec body checked (400 VALIDATION_ERROR otherwise) and its recurrences' ids. */
export function recNoticeClaims(body: unknown): RecNoticeClaims {
  parseOrThrow(recNotificationBody, body, 'notification body');
  // Checked above: an object with its array.
  return recurrenceClaimsOf(body) ?? { claims: [], ignored: 0 };
}

/** A webhookcobr body checked (400 VALIDATION_ERROR otherwise) and its cycle charges' txids. */
export function cobrNoticeClaims(body: unknown): CobrNoticeClaims {
  parseOrThrow(cobrNotificationBody, body, 'notification body');
  return cycleChargeClaimsOf(body) ?? { claims: [], ignored: 0 };
}

export async function answerRecNotice(
  notices: NoticeDeps,
  { claims, ignored }: RecNoticeClaims,
  scope: NoticeScope = null,
): Promise<{ received: true; ignored: number; outcomes: { idRec: string; outcome: NoticeOutcome }[] }> {
  return { received: true, ignored, outcomes: await noticeRecurrences(notices, claims, scope) };
}

export async function answerCobrNotice(
  notices: NoticeDeps,
  { claims, ignored }: CobrNoticeClaims,
  scope: NoticeScope = null,
): Promise<{ received: true; ignored: number; outcomes: { txid: string; outcome: NoticeOutcome }[] }> {
  return { received: true, ignored, outcomes: await noticeCycleCharges(notices, claims, scope) };
}

/**
 * SendMail (workflow id `mail-<mailId>`): delivers one outgoing_mails row. The input is the row id
 * only: bodies carry one-time codes, and operators read histories in the Web UI, so the text
 * lives encrypted in the database and never enters workflow input, activity arguments or results.
 *
 * Delivery retries with backoff (1 s doubling, at most 5 min apart) for about a day — an SMTP
 * server that is down for hours still gets the mail out. After that, or when the server refuses
 * the message for good, the row is marked FAILED and its body wiped.
 */
import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { MailActivities } from '../../activities/mail/mail';
import { MailFailureTypes, type MailOutcome } from './definitions';

const DELIVERY_WINDOW = '24 hours';

const delivery = proxyActivities<MailActivities>({
  // One attempt: connect (10 s) + SMTP dialogue (30 s socket timeout) + our DB writes.
  startToCloseTimeout: '1 minute',
  // Every attempt together: the give-up point.
  scheduleToCloseTimeout: DELIVERY_WINDOW,
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '5 minutes',
    nonRetryableErrorTypes: [MailFailureTypes.notFound, MailFailureTypes.rejected, MailFailureTypes.unusable],
  },
});

const bookkeeping = proxyActivities<MailActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

export async function sendMail(input: { mailId: string }): Promise<MailOutcome> {
  try {
    return await delivery.deliverMail({ mailId: input.mailId });
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    const cause = err.cause;
    if (cause instanceof ApplicationFailure && cause.type === MailFailureTypes.notFound) return 'FAILED';
    const type = cause instanceof ApplicationFailure ? cause.type : undefined;
    const reason =
      type === MailFailureTypes.rejected
        ? 'SMTP_REJECTED'
        : type === MailFailureTypes.unusable
          ? 'BODY_UNUSABLE'
          : 'GAVE_UP';
    await bookkeeping.failMail({ mailId: input.mailId, reason });
    return 'FAILED';
  }
}

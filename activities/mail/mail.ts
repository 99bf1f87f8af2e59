/**
 * E-mail activities for the SendMail workflow. `deliverMail` sends one outgoing_mails row over
 * SMTP and marks it SENT with its body wiped; a row already SENT is not sent again (a retried or
 * replayed attempt sends nothing twice — except when the server took the message and we crashed
 * before recording it: the fixed Message-ID lets the receiving side drop that duplicate).
 * `failMail` closes a row that will not be tried again. Arguments and results carry the mail id
 * and our own words only: never the body.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Sequelize } from 'sequelize';
import { DEFAULT_MAIL_FROM } from '../../config';
import { decryptSecret } from '../../core/crypto/secretBox';
import { createSmtpTransport, describeSmtpError, type SmtpTransport } from '../../core/mail/smtp';
import { OutgoingMail } from '../../db/models';
import { MailFailureTypes, type MailOutcome } from '../../workflows/mail/definitions';

export interface MailActivityDeps {
  sequelize: Sequelize;
  /** Decrypts mail bodies (the credentials encryption key). */
  secretsKey?: Buffer;
  /** SMTP_URL; without it every attempt fails (retryably) with SMTP_NOT_CONFIGURED. */
  smtpUrl?: string | null;
  /** MAIL_FROM. */
  mailFrom?: string;
}

/**
 * The Mailer may start the workflow inside the caller's transaction, before the row commits:
 * a missing row is waited for this long before it counts as rolled back.
 */
const ROW_GRACE_MS = 60_000;

export function createMailActivities(deps: MailActivityDeps) {
  const { sequelize } = deps;
  const from = deps.mailFrom ?? DEFAULT_MAIL_FROM;
  const messageDomain = /@([^@>\s]+)>?\s*$/.exec(from)?.[1] ?? 'localhost';
  let transport: SmtpTransport | undefined;

  async function recordError(mailId: string, error: string): Promise<void> {
    await sequelize.query(
      `UPDATE outgoing_mails SET last_error = :error, updated_at = now() WHERE id = :mailId AND status = 'QUEUED'`,
      {
        replacements: { mailId, error },
      },
    );
  }

  async function deliverMail(input: { mailId: string }): Promise<MailOutcome> {
    const { mailId } = input;
    const mail = await OutgoingMail.findByPk(mailId);
    if (!mail) {
      if (Date.now() - Context.current().info.scheduledTimestampMs < ROW_GRACE_MS) {
        throw ApplicationFailure.retryable('the mail row is not committed yet', 'MailNotVisibleYet');
      }
      throw ApplicationFailure.nonRetryable('no outgoing mail with this id', MailFailureTypes.notFound);
    }
    if (mail.status !== 'QUEUED') return mail.status;
    if (!deps.smtpUrl || !deps.secretsKey) {
      // A worker started without SMTP_URL (development): an operator can fix it within the retry window.
      const error = 'SMTP_NOT_CONFIGURED: the worker has no SMTP_URL';
      await recordError(mailId, error);
      throw ApplicationFailure.retryable(error, 'SmtpNotConfigured');
    }
    let text: string;
    try {
      if (mail.bodyCiphertext === null) throw new Error('no body');
      text = decryptSecret(mail.bodyCiphertext, deps.secretsKey);
    } catch {
      throw ApplicationFailure.nonRetryable(
        'the stored body is missing or cannot be decrypted with this key',
        MailFailureTypes.unusable,
      );
    }

    await sequelize.query(
      `UPDATE outgoing_mails SET attempts = attempts + 1, updated_at = now() WHERE id = :mailId AND status = 'QUEUED'`,
      {
        replacements: { mailId },
      },
    );
    transport ??= createSmtpTransport(deps.smtpUrl);
    try {
      await transport.sendMail({
        from,
        to: mail.toAddress,
        subject: mail.subject,
        text,
        messageId: `<${mailId}@${messageDomain}>`,
      });
    } catch (err) {
      // Our words only: the server's reply text or the URL could carry the login.
      const problem = describeSmtpError(err);
      const error = `${problem.code}: ${problem.message}`;
      await recordError(mailId, error);
      if (!problem.retryable) throw ApplicationFailure.nonRetryable(error, MailFailureTypes.rejected);
      throw ApplicationFailure.retryable(error, 'SmtpError');
    }
    await sequelize.query(
      `UPDATE outgoing_mails SET status = 'SENT', sent_at = now(), body_ciphertext = NULL, last_error = NULL, updated_at = now()
       WHERE id = :mailId AND status = 'QUEUED'`,
      { replacements: { mailId } },
    );
    return 'SENT';
  }

  /** Gives up on a row: FAILED, body wiped (the code in it must not outlive its use). */
  async function failMail(input: { mailId: string; reason: string }): Promise<void> {
    await sequelize.query(
      `UPDATE outgoing_mails SET status = 'FAILED', body_ciphertext = NULL, updated_at = now(),
         last_error = CASE WHEN last_error LIKE :reason || '%' THEN last_error ELSE :reason || COALESCE(' (last: ' || last_error || ')', '') END
       WHERE id = :mailId AND status = 'QUEUED'`,
      { replacements: { mailId: input.mailId, reason: input.reason } },
    );
  }

  return { deliverMail, failMail };
}

export type MailActivities = ReturnType<typeof createMailActivities>;

/**
 * The outgoing_mails table: e-mail queued by the API (body encrypted) and delivered by the
 * SendMail workflow's activities. Its one writer and the way to read it. Every state change after
 * the insert applies only to a QUEUED row, except the start failure's, which closes the row
 * whatever it holds.
 */
import type { Sequelize, Transaction } from 'sequelize';
import { OutgoingMail } from './outgoingMail';

export function findMail(mailId: string): Promise<OutgoingMail | null> {
  return OutgoingMail.findByPk(mailId);
}

/** A QUEUED mail, in the caller's transaction when given. */
export async function queueMail(
  sequelize: Sequelize,
  mail: { mailId: string; to: string; subject: string; bodyCiphertext: string },
  transaction?: Transaction,
): Promise<void> {
  await sequelize.query(
    `INSERT INTO outgoing_mails (id, to_address, subject, body_ciphertext, status) VALUES (:mailId, :to, :subject, :body, 'QUEUED')`,
    {
      replacements: { mailId: mail.mailId, to: mail.to, subject: mail.subject, body: mail.bodyCiphertext },
      transaction,
    },
  );
}

/** Nothing will deliver this row (its workflow did not start): FAILED, body wiped. */
export async function markNotStarted(sequelize: Sequelize, mailId: string, transaction?: Transaction): Promise<void> {
  await sequelize.query(
    `UPDATE outgoing_mails SET status = 'FAILED', body_ciphertext = NULL, last_error = 'WORKFLOW_NOT_STARTED', updated_at = now() WHERE id = :mailId`,
    {
      replacements: { mailId },
      transaction,
    },
  );
}

export async function recordError(sequelize: Sequelize, mailId: string, error: string): Promise<void> {
  await sequelize.query(
    `UPDATE outgoing_mails SET last_error = :error, updated_at = now() WHERE id = :mailId AND status = 'QUEUED'`,
    {
      replacements: { mailId, error },
    },
  );
}

export async function countAttempt(sequelize: Sequelize, mailId: string): Promise<void> {
  await sequelize.query(
    `UPDATE outgoing_mails SET attempts = attempts + 1, updated_at = now() WHERE id = :mailId AND status = 'QUEUED'`,
    {
      replacements: { mailId },
    },
  );
}

/** SENT, body wiped. */
export async function markSent(sequelize: Sequelize, mailId: string): Promise<void> {
  await sequelize.query(
    `UPDATE outgoing_mails SET status = 'SENT', sent_at = now(), body_ciphertext = NULL, last_error = NULL, updated_at = now()
     WHERE id = :mailId AND status = 'QUEUED'`,
    { replacements: { mailId } },
  );
}

/** Given up: FAILED, body wiped (the code in it must not outlive its use), `reason` before the last error. */
export async function markFailed(sequelize: Sequelize, mailId: string, reason: string): Promise<void> {
  await sequelize.query(
    `UPDATE outgoing_mails SET status = 'FAILED', body_ciphertext = NULL, updated_at = now(),
       last_error = CASE WHEN last_error LIKE :reason || '%' THEN last_error ELSE :reason || COALESCE(' (last: ' || last_error || ')', '') END
     WHERE id = :mailId AND status = 'QUEUED'`,
    { replacements: { mailId, reason } },
  );
}

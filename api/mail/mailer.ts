/**
 * Sending e-mail from the API (login and 2FA codes, security notices): `send` stores the message
 * in outgoing_mails with its body encrypted, then starts the SendMail workflow (`mail-<mailId>`),
 * which delivers it over SMTP with retries for about a day. Only the mail id goes to Temporal: the
 * text (a code) never enters workflow history.
 *
 * With `opts.transaction` the row is written in the caller's transaction and the workflow is
 * started before it commits, so a start failure (503) can still roll the caller back; the
 * delivery activity waits a minute for the row to appear and drops a rolled-back one.
 */
import crypto from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Sequelize } from 'sequelize';
import { outgoingMailStore } from '../../db/mail';
import type { Tx } from '../../db/tx';
import { encryptSecret, parseKey } from '../../core/crypto/secretBox';
import { mailWorkflowId, sendMailWorkflow } from '../../workflows/mail/definitions';
import { errors } from '../errors/apiError';
import { startWorkflow } from '../../core/temporal/workflows';

export interface MailerDeps {
  sequelize: Sequelize;
  temporal: Client;
  taskQueue: string;
  /** The credentials encryption key (32 bytes, or its hex/base64 form as in CREDENTIALS_ENCRYPTION_KEY). */
  encryptionKey: Buffer | string;
}

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

const MAX_ADDRESS = 254;
const MAX_SUBJECT = 200;
const MAX_TEXT = 100_000;
/** One bare address: something@domain, no spaces, no header tricks (CR/LF, commas, angle brackets). */
const ADDRESS = /^[^\s@<>,;"]+@[^\s@<>,;"]+\.[^\s@<>,;"]+$/;

export class Mailer {
  private readonly key: Buffer;

  constructor(private readonly deps: MailerDeps) {
    this.key = typeof deps.encryptionKey === 'string' ? parseKey(deps.encryptionKey) : deps.encryptionKey;
  }

  async send(msg: MailMessage, opts: { transaction?: Tx } = {}): Promise<{ mailId: string }> {
    if (msg.to.length > MAX_ADDRESS || !ADDRESS.test(msg.to))
      throw errors.validation('the recipient must be one e-mail address');
    if (msg.subject.length === 0 || msg.subject.length > MAX_SUBJECT || /[\r\n]/.test(msg.subject)) {
      throw errors.validation(`the subject must be one line of 1 to ${MAX_SUBJECT} characters`);
    }
    if (msg.text.length > MAX_TEXT) throw errors.validation(`the text must be at most ${MAX_TEXT} characters`);

    const mailId = crypto.randomUUID();
    const { sequelize, temporal, taskQueue } = this.deps;
    const transaction = opts.transaction;
    await outgoingMailStore.queueMail(
      sequelize,
      { mailId, to: msg.to, subject: msg.subject, bodyCiphertext: encryptSecret(msg.text, this.key) },
      transaction,
    );
    try {
      await startWorkflow(temporal, sendMailWorkflow, {
        workflowId: mailWorkflowId(mailId),
        taskQueue,
        args: [{ mailId }],
      });
    } catch {
      // Nothing will deliver this row: close it and wipe the body (the caller may also roll back).
      await outgoingMailStore.markNotStarted(sequelize, mailId, transaction).catch(() => undefined);
      throw errors.unavailable('the e-mail could not be queued; retry later');
    }
    return { mailId };
  }
}

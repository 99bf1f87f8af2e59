/**
 * Sending e-mail from the API (login and 2FA codes, security notices): `send` checks the message,
 * then queues it and starts its SendMail workflow (db/mail/mailWorkflows.ts), which delivers it
 * over SMTP with retries for about a day. With `opts.transaction` the row is written in the
 * caller's transaction and a start failure (503) can still roll the caller back.
 */
import type { Client } from '@temporalio/client';
import type { Sequelize } from 'sequelize';
import { MailNotStartedError, queueAndStartMail } from '../../db/mail';
import type { Tx } from '../../db/tx';
import { parseKey } from '../../core/crypto/secretBox';
import { errors } from '../errors/apiError';

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

    const { sequelize, temporal, taskQueue } = this.deps;
    try {
      return await queueAndStartMail(
        { sequelize, workflows: temporal, taskQueue, key: this.key },
        msg,
        opts.transaction,
      );
    } catch (err) {
      if (err instanceof MailNotStartedError) throw errors.unavailable('the e-mail could not be queued; retry later');
      throw err;
    }
  }
}

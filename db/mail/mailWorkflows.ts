/**
 * Queues one e-mail and starts its SendMail workflow (`mail-<mailId>`): the one way mail leaves,
 * for the API's Mailer (codes, security notices) and the worker's notices alike. The row is
 * written with its body encrypted, in the caller's transaction when given, and the workflow is
 * started before that commits, so a start failure can still roll the caller back (the delivery
 * activity waits a minute for the row to appear and drops a rolled-back one). Only the mail id
 * goes to Temporal: the text (a code) never enters workflow history. A start that fails closes
 * the row (FAILED, body wiped: nothing will deliver it) and throws MailNotStartedError.
 */
import crypto from 'node:crypto';
import type { Sequelize, Transaction } from 'sequelize';
import { encryptSecret } from '../../core/crypto/secretBox';
import { startWorkflow, type WorkflowsOf } from '../../core/temporal/workflows';
import { mailWorkflowId, sendMailWorkflow } from '../../workflows/mail/definitions';
import { markNotStarted, queueMail } from './outgoingMailStore';

/** The mail's SendMail workflow could not be started (Temporal unreachable): the row is closed. */
export class MailNotStartedError extends Error {
  constructor(cause: unknown) {
    super('the SendMail workflow could not be started', { cause });
    this.name = 'MailNotStartedError';
  }
}

export async function queueAndStartMail(
  deps: { sequelize: Sequelize; workflows: WorkflowsOf; taskQueue: string; key: Buffer },
  msg: { to: string; subject: string; text: string },
  transaction?: Transaction,
): Promise<{ mailId: string }> {
  const mailId = crypto.randomUUID();
  await queueMail(
    deps.sequelize,
    { mailId, to: msg.to, subject: msg.subject, bodyCiphertext: encryptSecret(msg.text, deps.key) },
    transaction,
  );
  try {
    await startWorkflow(deps.workflows, sendMailWorkflow, {
      workflowId: mailWorkflowId(mailId),
      taskQueue: deps.taskQueue,
      args: [{ mailId }],
    });
  } catch (err) {
    await markNotStarted(deps.sequelize, mailId, transaction).catch(() => undefined);
    throw new MailNotStartedError(err);
  }
  return { mailId };
}

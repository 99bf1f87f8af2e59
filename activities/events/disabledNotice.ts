/**
 * Tells a merchant's owners that their webhook endpoint was disabled after 3 days of failures, in
 * the transaction that disabled it: each mail row is written there and its SendMail workflow is
 * started before the commit (the mail activity waits a minute for a row that is not visible yet).
 * A start that fails throws, the disable rolls back with the rows, and the activity's retry does
 * both again: the endpoint is never disabled without its owners being told.
 */
import crypto from 'node:crypto';
import type { WorkflowClient } from '@temporalio/client';
import type { Sequelize, Transaction } from 'sequelize';
import { encryptSecret } from '../../core/crypto/secretBox';
import { endpointDisabledNotice } from '../../core/events/disabledNotice';
import { startWorkflow } from '../../core/temporal/workflows';
import { deliveryStore } from '../../db/events';
import { memberStore } from '../../db/identity';
import { outgoingMailStore } from '../../db/mail';
import { mailWorkflowId, sendMailWorkflow } from '../../workflows/mail/definitions';

export async function queueDisabledNotice(
  deps: { sequelize: Sequelize; secretsKey: Buffer; workflows: WorkflowClient; taskQueue: string },
  endpoint: { id: string; url: string; merchantId: string; disabledAt: Date },
  transaction: Transaction,
): Promise<number> {
  const { sequelize } = deps;
  const failure = await deliveryStore.failureOf(sequelize, endpoint.id, transaction);
  const notice = endpointDisabledNotice({ ...endpoint, ...failure });
  const to = await memberStore.ownerAddresses(sequelize, endpoint.merchantId, transaction);
  for (const address of to) {
    const mailId = crypto.randomUUID();
    await outgoingMailStore.queueMail(
      sequelize,
      { mailId, to: address, subject: notice.subject, bodyCiphertext: encryptSecret(notice.text, deps.secretsKey) },
      transaction,
    );
    await startWorkflow(deps.workflows, sendMailWorkflow, {
      workflowId: mailWorkflowId(mailId),
      taskQueue: deps.taskQueue,
      args: [{ mailId }],
    });
  }
  return to.length;
}

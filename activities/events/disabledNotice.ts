/**
 * Tells a merchant's owners that their webhook endpoint was disabled after 3 days of failures, in
 * the transaction that disabled it, by the one mail path (db/mail/mailWorkflows.ts): each mail row
 * is written there and its SendMail workflow started before the commit.
 * A start that fails throws, the disable rolls back with the rows, and the activity's retry does
 * both again: the endpoint is never disabled without its owners being told.
 */
import type { WorkflowClient } from '@temporalio/client';
import type { Sequelize, Transaction } from 'sequelize';
import { endpointDisabledNotice } from '../../core/events/disabledNotice';
import { deliveryStore } from '../../db/events';
import { memberStore } from '../../db/identity';
import { queueAndStartMail } from '../../db/mail';

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
    await queueAndStartMail(
      { sequelize, workflows: deps.workflows, taskQueue: deps.taskQueue, key: deps.secretsKey },
      { to: address, subject: notice.subject, text: notice.text },
      transaction,
    );
  }
  return to.length;
}

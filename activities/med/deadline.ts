/**
 * The MED case's deadline, as the merchant sees it (issue 38): the alerts 48, 24 and 6 hours
 * before it (core/med/deadlineAlerts.ts), each a webhook event and an e-mail to the merchant's
 * owners, and the answer given for the merchant when the deadline comes unanswered.
 */
import { Context } from '@temporalio/activity';
import { deadlineAlertMail } from '../../core/med/deadlineAlerts';
import { memberStore } from '../../db/identity';
import { queueAndStartMail } from '../../db/mail';
import { medCaseStore, medInfractionStore, presentInfraction } from '../../db/med';
import { DEFAULT_MED_DECISION, type MedDecisionRequest } from '../../workflows/med/types';
import { recordEvent } from '../events/outbox';
import { locked, type MedActivityDeps } from './infraction';

/** The mail needs the key that encrypts bodies at rest (CREDENTIALS_ENCRYPTION_KEY), as every worker mail does. */
export type MedDeadlineDeps = MedActivityDeps & { secretsKey?: Buffer };

/**
 * The alert `hoursLeft` hours before the deadline, once (its med_infraction_alerts row): event
 * med.infraction.deadline_approaching with `hoursLeft` beside the infraction, and an e-mail to
 * each owner of the merchant, in one transaction with the row, so a retry sends neither twice.
 * A case no longer OPEN (decided meanwhile) is not alerted.
 */
export async function alertMedDeadline(
  deps: MedDeadlineDeps,
  args: { infractionId: string; hoursLeft: number },
): Promise<{ sent: boolean }> {
  const { sequelize } = deps;
  const ctx = Context.current();
  return locked(deps, args.infractionId, async (row, transaction) => {
    if (row.status !== 'OPEN') return { sent: false };
    if (!(await medCaseStore.recordAlert(sequelize, row.id, args.hoursLeft, transaction))) return { sent: false };
    await recordEvent(
      {
        type: 'med.infraction.deadline_approaching',
        merchantId: row.merchant_id,
        aggregateType: 'med_infraction',
        aggregateId: row.id,
        dedupKey: `med.infraction.deadline_approaching:${row.id}:${args.hoursLeft}`,
        payload: { ...presentInfraction(row), hoursLeft: args.hoursLeft },
      },
      transaction,
    );
    if (!deps.secretsKey) {
      // Never hold the case up for its mail (the answer at the deadline comes after the alerts): the event went.
      deps.logger.error(
        { infractionId: row.id },
        'MED alert: no encryption key on this worker; the e-mail was not sent',
      );
      return { sent: true };
    }
    const mail = deadlineAlertMail({
      infractionId: row.id,
      hoursLeft: args.hoursLeft,
      deadlineAt: new Date(row.deadline_at),
      disputedAmountCents: Number(row.disputed_cents),
      endToEndId: row.end_to_end_id,
    });
    for (const to of await memberStore.ownerAddresses(sequelize, row.merchant_id, transaction)) {
      await queueAndStartMail(
        { sequelize, workflows: ctx.client.workflow, taskQueue: ctx.info.taskQueue, key: deps.secretsKey },
        { to, subject: mail.subject, text: mail.text },
        transaction,
      );
    }
    return { sent: true };
  });
}

/**
 * What the case is answered with when the deadline comes with no decision: the merchant's stored
 * defence (REJECT, the claim contested, with its text: a defence whose sending failed still goes),
 * else DEFAULT_MED_DECISION (ACCEPT). decidedBy is DEFAULT either way: nobody decided at that time.
 */
export async function decisionAtDeadline(
  deps: MedActivityDeps,
  args: { infractionId: string },
): Promise<MedDecisionRequest> {
  const row = await medInfractionStore.findInfraction(deps.sequelize, args.infractionId);
  const defence = row ? await medCaseStore.findDefence(deps.sequelize, row.id) : null;
  if (!defence) return DEFAULT_MED_DECISION;
  return { decision: 'REJECT', justification: defence.text, decidedBy: DEFAULT_MED_DECISION.decidedBy };
}

/** Every activity the gateway worker registers, built from explicit dependencies. */
import { createChargeActivities, type ChargeActivityDeps } from './charges';
import { createWithdrawalActivities } from './withdrawals';
import { createPayoutActivities } from './payouts';
import { createReconcileActivities } from './reconcile';
import { createReconciliationActivities } from './reconciliations';
import { createRefundActivities } from './refunds';
import { createSettlementActivities } from './settlements';
import { createMedActivities } from './med';
import { createBoletoBatchActivities } from './boletoBatches';
import { createWebhookActivities, type WebhookActivityDeps } from './webhooks';
import { createMailActivities, type MailActivityDeps } from './mail';
import { createPixSweepActivities } from './pixSweep';

export type ActivityDeps = ChargeActivityDeps &
  Omit<WebhookActivityDeps, 'sequelize'> &
  Omit<MailActivityDeps, 'sequelize'>;

export function createActivities(deps: ActivityDeps) {
  return {
    ...createChargeActivities(deps),
    ...createWithdrawalActivities(deps),
    ...createPayoutActivities(deps),
    ...createReconcileActivities(deps),
    ...createReconciliationActivities(deps),
    ...createRefundActivities(deps),
    ...createSettlementActivities(deps),
    ...createMedActivities(deps),
    ...createBoletoBatchActivities(deps),
    ...createWebhookActivities(deps),
    ...createMailActivities(deps),
    ...createPixSweepActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;

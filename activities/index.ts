/** Every activity the gateway worker registers, built from explicit dependencies. */
import { createChargeActivities, type ChargeActivityDeps } from './charges/charges';
import { createWithdrawalActivities } from './withdrawals/withdrawals';
import { createPayoutActivities } from './payouts/payouts';
import { createReconcileActivities } from './transfers/repair';
import { createReconciliationActivities } from './reconciliations/reconciliations';
import { createRefundActivities } from './refunds/refunds';
import { createSettlementActivities } from './settlements/settlements';
import { createMedActivities } from './med/med';
import { createBoletoBatchActivities } from './boletos/boletoBatches';
import { createWebhookActivities, type WebhookActivityDeps } from './events/deliveries';
import { createMailActivities, type MailActivityDeps } from './mail/mail';
import { createPixSweepActivities } from './charges/pixSweep';

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

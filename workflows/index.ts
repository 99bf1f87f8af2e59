// The worker's workflow bundle entry: every workflow type the gateway runs.
export { chargeLifecycle } from './charges/chargeLifecycle';
export { settleLatePayment } from './charges/latePayment';
export { withdrawalLifecycle } from './withdrawals/withdrawal';
export { payoutBatch } from './payouts/payoutBatch';
export { payoutChunk } from './payouts/payoutChunk';
export { webhookDelivery } from './events/webhookDelivery';
export { outboxDispatcher } from './events/outboxDispatcher';
export { janitor } from './transfers/janitor';
export { sendMail } from './mail/sendMail';
export { refundLifecycle } from './refunds/refundLifecycle';
export { boletoBatch } from './boletos/boletoBatch';
export { reconciliation } from './reconciliations/reconciliation';
export { dailyReconciliation } from './reconciliations/daily';
export { scheduledSettlement } from './settlements/scheduledSettlement';
export { medInfraction } from './med/medInfraction';
export { medInfractionSync } from './med/medInfractionSync';
export { pixPaymentSweep } from './charges/sweep/pixPaymentSweep';

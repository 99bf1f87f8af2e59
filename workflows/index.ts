// The worker's workflow bundle entry: every workflow type the gateway runs.
export { chargeLifecycle } from './charge/chargeLifecycle';
export { settleLatePayment } from './charge/latePayment';
export { withdrawalLifecycle } from './withdrawal/withdrawal';
export { payoutBatch } from './payout/payoutBatch';
export { payoutChunk } from './payout/payoutChunk';
export { webhookDelivery } from './webhook/webhookDelivery';
export { outboxDispatcher } from './webhook/outboxDispatcher';
export { janitor } from './janitor/janitor';
export { sendMail } from './mail/sendMail';
export { refundLifecycle } from './refund/refundLifecycle';
export { boletoBatch } from './boleto/boletoBatch';
export { reconciliation } from './reconciliation/reconciliation';
export { dailyReconciliation } from './reconciliation/daily';
export { scheduledSettlement } from './settlement/scheduledSettlement';
export { medInfraction } from './med/medInfraction';
export { medInfractionSync } from './med/medInfractionSync';
export { pixPaymentSweep } from './pixSweep/pixPaymentSweep';

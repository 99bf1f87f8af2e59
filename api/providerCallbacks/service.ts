/**
 * Turns a verified provider callback into durable workflow input. The API moves no money: it
 * signals the charge's workflow, or, when that workflow has already closed (the charge expired
 * or was cancelled first), starts the small settleLatePayment workflow. Each event is stored
 * once in provider_events for audit and reconciliation.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { ProviderCallback } from '../../core/provider';
import { Charge } from '../../db/models';
import { chargeWorkflowId, latePaymentWorkflowId, paymentConfirmedSignal } from '../../workflows/charge/definitions';
import type { settleLatePayment } from '../../workflows/charge/latePayment';
import type { PaymentConfirmation } from '../../workflows/charge/types';
import { MerchantIdKey } from '../../workflows/searchAttributes';

export type CallbackOutcome = 'SIGNALLED' | 'ALREADY_PAID' | 'LATE_PAYMENT' | 'UNKNOWN_CHARGE' | 'IGNORED';

export class ProviderCallbackService {
  constructor(private readonly deps: { sequelize: Sequelize; temporal: Client; taskQueue: string }) {}

  async handle(event: ProviderCallback): Promise<CallbackOutcome> {
    await this.deps.sequelize.query(
      `INSERT INTO provider_events (id, type, provider_charge_id, payload) VALUES (:id, :type, :chargeId, :payload)
       ON CONFLICT (id) DO NOTHING`,
      { replacements: { id: event.eventId, type: event.type, chargeId: event.charge.id, payload: JSON.stringify(event) }, type: QueryTypes.INSERT },
    );
    const outcome = await this.route(event);
    await this.deps.sequelize.query(`UPDATE provider_events SET outcome = :outcome WHERE id = :id`, {
      replacements: { outcome, id: event.eventId },
    });
    return outcome;
  }

  private async route(event: ProviderCallback): Promise<CallbackOutcome> {
    if (event.type !== 'charge.paid' || event.charge.status !== 'PAID' || !event.charge.endToEndId || !event.charge.paidAt) return 'IGNORED';
    const charge = await Charge.findOne({ where: { providerChargeId: event.charge.id } });
    if (!charge) return 'UNKNOWN_CHARGE';
    const payment: PaymentConfirmation = {
      providerChargeId: event.charge.id,
      endToEndId: event.charge.endToEndId,
      amountCents: event.charge.amountCents,
      paidAt: event.charge.paidAt,
      payer: event.charge.payer,
    };
    if (charge.status === 'PAID') return 'ALREADY_PAID';
    try {
      await this.deps.temporal.workflow.getHandle(chargeWorkflowId(charge.id)).signal(paymentConfirmedSignal, payment);
      return 'SIGNALLED';
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
    // The lifecycle workflow has closed. Re-read: it may have settled this very payment.
    await charge.reload();
    if ((charge.status as string) === 'PAID') return 'ALREADY_PAID';
    try {
      await this.deps.temporal.workflow.start<typeof settleLatePayment>('settleLatePayment', {
        workflowId: latePaymentWorkflowId(charge.id, payment.endToEndId),
        taskQueue: this.deps.taskQueue,
        args: [{ chargeId: charge.id, payment }],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        typedSearchAttributes: [{ key: MerchantIdKey, value: charge.merchantId }],
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
    return 'LATE_PAYMENT';
  }
}

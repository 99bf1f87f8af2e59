/**
 * Turns a payment claim into durable workflow input, whichever process has it: the API's callback
 * routes (the provider's own signed events, charge.paid and boleto.paid, and API Pix
 * notifications, one Pix each) and the worker's sweep for lost notifications and reconciliation
 * (a Pix or a payment they found: `handleReceivedPix`, stored as event `pix:<endToEndId>`, and
 * `settleClaim`). Nothing here moves money, and a claim is only a claim: settlement asks the
 * provider before crediting anything.
 * - PENDING charge: signal its lifecycle workflow. If the run has closed meanwhile (or closes
 *   the charge right after our signal), settle through settleLatePayment as well: that path is
 *   idempotent (ledger key + row lock), so a payment racing expiry or cancel is never dropped.
 * - EXPIRED or CANCELLED charge: settleLatePayment.
 * - PAID charge: the same payment is a duplicate; another endToEndId is stored as an alert.
 * - A subscription cycle's charge (subscription_id set), whatever its status but PAID: its
 *   subscription's workflow is signalled (cycleNoticeSignal, the cobr's txid) and nothing else
 *   happens here: only that workflow settles it, on GET /cobr (activities/subscriptions).
 * Each event is stored once in provider_events with its FIRST outcome: a replay answers that
 * outcome and re-runs nothing.
 */
import type { Logger } from 'pino';
import type { Sequelize } from 'sequelize';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { ProviderBoletoCallback, ProviderCallback, ReceivedPix } from '../../core/provider';
import { boletoClaim } from '../../core/boletos/claim';
import type { PaymentConfirmation } from '../../core/charges/paymentConfirmation';
import { endToEndKey } from '../../core/pix/endToEndKey';
import { chargeIdOfTxid, referenceOfIdEnvio } from '../../core/pix/apiPixIds';
import { MerchantIdKey } from '../../core/temporal/searchAttributes';
import { startWorkflow, workflowHandle } from '../../core/temporal/workflows';
import { sentPixNoticeWorkflow, sentPixNoticeWorkflowId } from '../../workflows/transfers/definitions';
import { runlessAnswer, type SentPixNotice } from '../transfers/sentPixNotice';
import {
  chargeLifecycleWorkflow,
  chargeWorkflowId,
  latePaymentWorkflowId,
  paymentConfirmedSignal,
  settleLatePaymentWorkflow,
} from '../../workflows/charges/definitions';
import {
  cycleNoticeSignal,
  subscriptionLifecycleWorkflow,
  subscriptionWorkflowId,
} from '../../workflows/subscriptions/definitions';
import type { Charge } from './charge';
import * as chargeStore from './chargeStore';
import * as paymentAlertStore from './paymentAlertStore';
import * as providerEventStore from './providerEventStore';

/**
 * SIGNALLED: passed to the charge's workflow (a cycle charge's: its subscription's) · LATE_PAYMENT: the charge was closed, settled by
 * settleLatePayment · ALREADY_PAID: this payment was credited before · DUPLICATE_PAYMENT: another
 * payment for a PAID charge, not credited, stored as an alert · UNKNOWN_CHARGE · IGNORED (not a
 * payment). Every payment is credited only after the provider confirms it. The callback routes
 * answer these (their schema is built from this list: api/charges/callbacks/schema.ts).
 */
export const callbackOutcomes = [
  'SIGNALLED',
  'ALREADY_PAID',
  'DUPLICATE_PAYMENT',
  'LATE_PAYMENT',
  'UNKNOWN_CHARGE',
  'IGNORED',
  /** A notice about a Pix we sent: the PSP's record of it is being read (sentPixNotice). */
  'SENT_PIX_FOLLOWED',
  /** A notice about a Pix we sent and settled here, reporting no return and no reason: no run needed. */
  'SENT_PIX_SETTLED',
  /** A notice, with no return and no reason, about a Pix whose own workflow runs and reads its outcome. */
  'SENT_PIX_LEFT_TO_ITS_WORKFLOW',
  /**
   * A Pix notified on a merchant's own connection whose txid names another merchant's charge:
   * not claimed, not stored (MerchantScope).
   */
  'NOT_THIS_CONNECTION',
] as const;

export type CallbackOutcome = (typeof callbackOutcomes)[number];

/** charge.paid (Pix charges) or boleto.paid (boleto charges, paid by barcode or by their Pix). */
export type ProviderEvent = ProviderCallback | ProviderBoletoCallback;

/**
 * A claim that came through a merchant's own PSP connection (api/connections/notifications): it
 * may claim that merchant's charges only. Whoever can read the connection's webhook at the PSP
 * (the merchant itself) can post to its URL, so its claims must reach no other merchant's charge
 * and no record another merchant's Pix will be looked up by.
 */
export interface MerchantScope {
  merchantId: string;
}

/**
 * The provider_events id of a Pix received, however it came (notification or sweep). A scoped
 * claim's id names its merchant: an endToEndId posted on one merchant's connection can never take
 * the place of the same endToEndId arriving for another (the first outcome is the one answered).
 */
export function receivedPixEventId(endToEndId: string, scope?: MerchantScope): string {
  return scope ? `pix:${scope.merchantId}:${endToEndKey(endToEndId)}` : `pix:${endToEndKey(endToEndId)}`;
}

function subjectId(event: ProviderEvent): string {
  return 'boleto' in event && event.boleto ? event.boleto.id : (event as ProviderCallback).charge.id;
}

export class ProviderCallbackService {
  constructor(private readonly deps: { sequelize: Sequelize; temporal: Client; taskQueue: string; logger: Logger }) {}

  handle(event: ProviderEvent): Promise<CallbackOutcome> {
    return this.once({ id: event.eventId, type: event.type, subject: subjectId(event), payload: event }, () =>
      this.route(event),
    );
  }

  /**
   * One Pix received (an API Pix notification's entry, or one the sweep found with GET /pix). Its
   * txid names our charge (the cob's txid is derived from the charge id); a txid that is not one
   * of ours, or names no Pix charge of ours, is logged and credits nothing. Every other Pix is a
   * claim like a callback's: settlement reads the cob and the Pix back from the PSP (GET /cob,
   * GET /pix/{e2eid}) before crediting. Stored once as `pix:<endToEndId>`, whichever way it came.
   *
   * With a scope (a merchant's own connection), a txid naming another merchant's charge is
   * NOT_THIS_CONNECTION before anything is stored, and the event id names the merchant.
   */
  async handleReceivedPix(pix: ReceivedPix, scope?: MerchantScope): Promise<CallbackOutcome> {
    if (scope) {
      const chargeId = pix.txid ? chargeIdOfTxid(pix.txid) : null;
      const owner = chargeId ? await chargeStore.chargeOwner(chargeId) : null;
      if (owner && owner.merchantId !== scope.merchantId) {
        // The ids only: a Pix may carry a payer's name and document.
        this.deps.logger.warn(
          { merchantId: scope.merchantId, chargeId, endToEndId: endToEndKey(pix.endToEndId) },
          "Pix notified on a merchant's connection for another merchant's charge; not claimed",
        );
        return 'NOT_THIS_CONNECTION';
      }
    }
    return this.once(
      { id: receivedPixEventId(pix.endToEndId, scope), type: 'pix', subject: pix.txid, payload: pix },
      () => this.routePix(pix),
    );
  }

  /**
   * A connected merchant's boleto notified by its own PSP (Efí's API Cobranças: `{notification:
   * <token>}` at the URL the boleto was issued with, which names the charge): only a reason to
   * read the boleto at the merchant's account, which settlement does (settleBoleto credits only a
   * record PAID there). A charge of another merchant is NOT_THIS_CONNECTION; stored once per token.
   */
  async handleBoletoNotice(chargeId: string, token: string, scope: MerchantScope): Promise<CallbackOutcome> {
    const charge = await chargeStore.findCharge(chargeId);
    if (charge && charge.merchantId !== scope.merchantId) {
      this.deps.logger.warn(
        { merchantId: scope.merchantId, chargeId },
        "boleto notified on a merchant's connection for another merchant's charge; not claimed",
      );
      return 'NOT_THIS_CONNECTION';
    }
    return this.once(
      {
        id: `boleto-notice:${scope.merchantId}:${chargeId}:${token}`,
        type: 'boleto.notice',
        subject: charge?.providerChargeId ?? null,
        payload: { chargeId },
      },
      async () => {
        if (!charge || charge.method !== 'BOLETO' || !charge.providerChargeId) return 'UNKNOWN_CHARGE';
        if (charge.status === 'PAID') return 'ALREADY_PAID';
        return this.deliver(charge, {
          providerChargeId: charge.providerChargeId,
          endToEndId: `BOLETO-${charge.providerChargeId}`,
          amountCents: charge.amountCents,
          paidAt: new Date().toISOString(),
          payer: null,
        });
      },
    );
  }

  /**
   * A notice about a Pix we sent (Efí: `tipo: SOLICITACAO`, `gnExtras.idEnvio`): only a reason to
   * read the PSP's record of the send, which sentPixNotice does; its status, amount and returns
   * are never taken from the notice. A notice no run could act on is answered without one
   * (db/transfers/sentPixNotice.ts). An idEnvio that is not one of ours is ignored (logged).
   */
  async handleSentPix(notice: SentPixNotice, scope?: MerchantScope): Promise<CallbackOutcome> {
    const reference = referenceOfIdEnvio(notice.idEnvio);
    if (!reference) {
      this.deps.logger.warn({ idEnvio: notice.idEnvio.slice(0, 35) }, 'notice about a Pix we did not send; ignored');
      return 'IGNORED';
    }
    const answer = await runlessAnswer(this.deps.temporal, reference, notice, scope?.merchantId ?? null);
    if (answer) return answer;
    // A run already reading this send may have read Efí's record before what this notice reports
    // (a return): the new notice replaces it, so the last run reads the latest record. Safe to
    // cut short: each step it takes is idempotent (one ledger key per return, row locks).
    await startWorkflow(this.deps.temporal, sentPixNoticeWorkflow, {
      workflowId: sentPixNoticeWorkflowId(notice.idEnvio),
      taskQueue: this.deps.taskQueue,
      args: [{ idEnvio: notice.idEnvio, reason: notice.reason }],
      workflowIdConflictPolicy: 'TERMINATE_EXISTING',
    });
    return 'SENT_PIX_FOLLOWED';
  }

  /** Stores the event once, with its FIRST outcome: a replay answers that outcome and re-runs nothing. */
  private async once(
    event: { id: string; type: string; subject: string | null; payload: unknown },
    route: () => Promise<CallbackOutcome>,
  ): Promise<CallbackOutcome> {
    const first = await providerEventStore.storeOnce(this.deps.sequelize, event);
    if (first) return first as CallbackOutcome;
    const outcome = await route();
    const stored = await providerEventStore.settleOutcome(this.deps.sequelize, event.id, outcome);
    return (stored as CallbackOutcome | null) ?? outcome;
  }

  private async routePix(pix: ReceivedPix): Promise<CallbackOutcome> {
    const chargeId = pix.txid ? chargeIdOfTxid(pix.txid) : null;
    const charge = chargeId ? await chargeStore.findCharge(chargeId) : null;
    if (!charge || charge.method !== 'PIX' || charge.providerChargeId !== pix.txid) {
      // The ids only: a Pix may carry a payer's name and document.
      this.deps.logger.warn(
        { txid: pix.txid, endToEndId: endToEndKey(pix.endToEndId) },
        'Pix received for no Pix charge of ours; nothing credited',
      );
      return 'UNKNOWN_CHARGE';
    }
    const payment: PaymentConfirmation = {
      providerChargeId: charge.providerChargeId as string,
      endToEndId: pix.endToEndId,
      amountCents: pix.amountCents,
      paidAt: pix.paidAt,
      payer: pix.payer,
    };
    if (payment.amountCents !== charge.amountCents) {
      // Settlement decides on the PSP's own record; this only says the notification disagrees.
      this.deps.logger.warn(
        {
          chargeId: charge.id,
          endToEndId: endToEndKey(pix.endToEndId),
          reportedCents: payment.amountCents,
          chargeCents: charge.amountCents,
        },
        'Pix received of another amount than the charge; settlement asks the PSP',
      );
    }
    if (charge.status === 'PAID') return this.forPaidCharge(charge, payment);
    return this.deliver(charge, payment);
  }

  private async route(event: ProviderEvent): Promise<CallbackOutcome> {
    if (event.type === 'boleto.paid' && 'boleto' in event && event.boleto) return this.routeBoleto(event);
    if (
      event.type !== 'charge.paid' ||
      !('charge' in event) ||
      !event.charge ||
      event.charge.status !== 'PAID' ||
      !event.charge.endToEndId ||
      !event.charge.paidAt
    )
      return 'IGNORED';
    const charge = await chargeStore.findChargeByProviderId(event.charge.id);
    if (!charge) return 'UNKNOWN_CHARGE';
    const payment: PaymentConfirmation = {
      providerChargeId: event.charge.id,
      endToEndId: event.charge.endToEndId,
      amountCents: event.charge.amountCents,
      paidAt: event.charge.paidAt,
      payer: event.charge.payer,
    };
    if (charge.status === 'PAID') return this.forPaidCharge(charge, payment);
    return this.deliver(charge, payment);
  }

  /**
   * boleto.paid: the same claim path as a Pix payment (settlement asks the provider's boleto). A
   * boleto is paid once at most (the provider closes the other way), so a PAID charge is ALREADY_PAID.
   */
  private async routeBoleto(event: ProviderBoletoCallback): Promise<CallbackOutcome> {
    const boleto = event.boleto;
    if (boleto.status !== 'PAID' || !boleto.payment) return 'IGNORED';
    const charge = await chargeStore.findChargeByProviderId(boleto.id);
    if (!charge || charge.method !== 'BOLETO') return 'UNKNOWN_CHARGE';
    if (charge.status === 'PAID') return 'ALREADY_PAID';
    return this.deliver(charge, boletoClaim(boleto));
  }

  /**
   * The normal path for a payment claim that did not come as a callback (a reconciliation found
   * a payment the provider has and we lack): exactly what a callback for it would have done.
   */
  settleClaim(charge: Charge, payment: PaymentConfirmation): Promise<CallbackOutcome> {
    return charge.status === 'PAID' ? this.forPaidCharge(charge, payment) : this.deliver(charge, payment);
  }

  /** PENDING: signal the lifecycle (and settle late if it closed meanwhile); closed: settle late. */
  private async deliver(charge: Charge, payment: PaymentConfirmation): Promise<CallbackOutcome> {
    if (charge.subscriptionId) return this.noticeCycle(charge);
    if (charge.status !== 'PENDING') return this.settleLate(charge, payment);
    try {
      await workflowHandle(this.deps.temporal, chargeLifecycleWorkflow, chargeWorkflowId(charge.id)).signal(
        paymentConfirmedSignal,
        payment,
      );
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
      return this.settleLate(charge, payment);
    }
    // The run may have closed the charge between our read and the signal, after its last look
    // for a payment: then the signal may never be read, so settle late too.
    await chargeStore.reload(charge);
    if (charge.status !== 'PENDING' && charge.status !== 'PAID') return this.settleLate(charge, payment);
    return 'SIGNALLED';
  }

  /**
   * A Pix on a cycle's cobr: a reason for the subscription's workflow to read it (GET /cobr), never
   * a claim this path settles or closes. A workflow that is gone (the subscription ended) has
   * nothing to read: logged, and the payment is for a person to look at through the PSP's record.
   */
  private async noticeCycle(charge: Charge): Promise<CallbackOutcome> {
    const subscriptionId = charge.subscriptionId as string;
    try {
      await workflowHandle(
        this.deps.temporal,
        subscriptionLifecycleWorkflow,
        subscriptionWorkflowId(subscriptionId),
      ).signal(cycleNoticeSignal, { txid: charge.pixTxid as string });
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
      this.deps.logger.warn(
        { chargeId: charge.id, subscriptionId },
        "Pix received on a cycle charge whose subscription's workflow is not running; nothing credited",
      );
      return 'UNKNOWN_CHARGE';
    }
    return 'SIGNALLED';
  }

  private async forPaidCharge(charge: Charge, payment: PaymentConfirmation): Promise<CallbackOutcome> {
    if (payment.endToEndId === charge.endToEndId) return 'ALREADY_PAID';
    // A second payment for one charge: the money may be at the provider; a person must look.
    await paymentAlertStore.recordPaymentAlert(this.deps.sequelize, {
      chargeId: charge.id,
      kind: 'DUPLICATE_PAYMENT',
      endToEndId: payment.endToEndId,
      amountCents: payment.amountCents,
      details: { paidEndToEndId: charge.endToEndId, providerChargeId: payment.providerChargeId },
    });
    this.deps.logger.error(
      { chargeId: charge.id, merchantId: charge.merchantId, endToEndId: endToEndKey(payment.endToEndId) },
      'second payment reported for a PAID charge; not credited, see payment_alerts',
    );
    return 'DUPLICATE_PAYMENT';
  }

  private async settleLate(charge: Charge, payment: PaymentConfirmation): Promise<CallbackOutcome> {
    try {
      await startWorkflow(this.deps.temporal, settleLatePaymentWorkflow, {
        workflowId: latePaymentWorkflowId(charge.id, endToEndKey(payment.endToEndId)),
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

/**
 * API Pix notifications: POST {"pix": [Pix]} to the registered webhookUrl + "/pix" (the BCB
 * document's callback rule, `{$request.body#/webhookUrl}/pix`, appended as written), when a cob
 * is paid and when one of its devoluções reaches DEVOLVIDO or NAO_REALIZADO. Only Pix that paid
 * a cob created through API Pix are notified, and only while a webhook is registered for the
 * cob's chave: a /v1 charge or a boleto keeps its own callback, and a payment with no webhook
 * registered is simply not announced (the client finds it with GET /pix, as with a real PSP).
 * Delivery, retries and the attempt log are the sandbox's callback dispatcher (callbacks.ts).
 */
import { randomAlphanumeric } from '../../core/pix/random';
import type { SandboxContext } from '../context';
import { findReceivedPixPaymentByE2e, type ReceivedPixPayment } from '../receivedPayments';
import type { ChargeRecord, DevolucaoRecord } from '../state';
import { pixJson } from './pixView';

function notifyPix(ctx: SandboxContext, payment: ReceivedPixPayment, eventId: string): void {
  if (!payment.cob) return;
  const webhook = ctx.state.pixWebhooks.get(payment.pixKey);
  if (!webhook) {
    ctx.logger.info(
      { endToEndId: payment.endToEndId, eventId },
      'no webhook registered for the chave: Pix not notified',
    );
    return;
  }
  // Logged under the cob's txid: the id an API Pix client knows the cob by (the /v1 id is the sandbox's own).
  ctx.callbacks.deliverJson(
    { eventId, subjectId: payment.txid, body: { pix: [pixJson(ctx, payment)] } },
    `${webhook.webhookUrl}/pix`,
  );
}

/** SandboxContext.cobNotifications.cobPaid: the paid event's eventId names the delivery in the log. */
export function notifyCobPaid(ctx: SandboxContext, rec: ChargeRecord): void {
  const payment = rec.charge.endToEndId ? findReceivedPixPaymentByE2e(ctx, rec.charge.endToEndId) : null;
  if (payment && rec.paidEvent) notifyPix(ctx, payment, rec.paidEvent.eventId);
}

/** Notifies each devolução when it settles (settlesAt, on the real clock); stop() drops what is pending. */
export class DevolucaoSettlements {
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly ctx: SandboxContext) {}

  schedule(devolucao: DevolucaoRecord): void {
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        const payment = findReceivedPixPaymentByE2e(this.ctx, devolucao.endToEndId);
        if (payment) notifyPix(this.ctx, payment, `evt_${randomAlphanumeric(24)}`);
      },
      Math.max(0, Date.parse(devolucao.settlesAt) - Date.now()),
    );
    this.timers.add(timer);
  }

  stop(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}

/**
 * The send's webhook: when a send settles (settlesAt, on the real clock) and when its recipient
 * returns part of it, POST {"pix": [entry]} to the webhook registered for the send's
 * pagador.chave through API Pix (PUT /api/v2/webhook/{chave}) + "/pix" (Efí's rule; a URL ending
 * in "?ignorar=" is called as it is). Delivery, retries and the attempt log are the sandbox's
 * callback dispatcher, as for received Pix (logged under the idEnvio). No webhook registered,
 * or paused by POST /sandbox/efi/webhooks: nothing is sent. Pending timers live in memory: after
 * a restart the outcome still reads on GET, but its webhook is not sent.
 */
import { randomAlphanumeric } from '../../core/pix/random';
import type { SandboxContext } from '../context';
import type { EfiSendRecord } from '../state';
import { sentPixNotification } from './sendView';

export function webhookTarget(webhookUrl: string): string {
  return webhookUrl.endsWith('?ignorar=') ? webhookUrl : `${webhookUrl}/pix`;
}

export class EfiSendWebhooks {
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly ctx: SandboxContext) {}

  /** Notifies the send's outcome when it settles. */
  scheduleSettlement(send: EfiSendRecord): void {
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        this.notify(send.idEnvio);
      },
      Math.max(0, Date.parse(send.settlesAt) - Date.now()),
    );
    this.timers.add(timer);
  }

  /** Settlement notices still waiting for their send to settle. */
  get scheduled(): number {
    return this.timers.size;
  }

  /** POSTs the send as it is now (with its devoluções, if any). */
  notify(idEnvio: string): void {
    const { ctx } = this;
    const send = ctx.state.efiSends.get(idEnvio);
    if (!send) return;
    if (ctx.state.efiWebhooksPaused) {
      ctx.logger.info({ idEnvio }, 'efi send webhooks paused: notification dropped');
      return;
    }
    const webhook = ctx.state.pixWebhooks.get(send.payerKey);
    if (!webhook) {
      ctx.logger.info({ idEnvio }, 'no webhook registered for the paying key: send not notified');
      return;
    }
    ctx.callbacks.deliverJson(
      { eventId: `evt_${randomAlphanumeric(24)}`, subjectId: idEnvio, body: { pix: [sentPixNotification(send)] } },
      webhookTarget(webhook.webhookUrl),
    );
  }

  stop(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}

/**
 * Registers where the PSP notifies Pix received on our key (API Pix PUT /webhook/{chave}),
 * unless it already points there: idempotent at every boot and from the CLI
 * (`npm run gateway -- provider webhook register`). The URL carries PIX_WEBHOOK_SECRET, so it is
 * never printed or logged; what is reported is whether it changed. A transient answer (a timeout,
 * a 5xx, a 429) is asked again a few times with a growing wait: a PSP slow for a moment at boot
 * must not stop the worker from starting; a refusal is thrown at once.
 */
import type { PixApiClient } from '../activities/provider/pixApi';
import {
  ensureRecurrenceWebhooksAt,
  ensureWebhookAt,
  type WebhookRegistration,
  type WebhookRetry,
  DEFAULT_WEBHOOK_RETRY,
} from '../activities/provider/pixWebhook';
import { pixWebhookUrl } from '../core/pix/callbackPath';

export async function ensurePixWebhook(
  client: Pick<PixApiClient, 'getWebhook' | 'putWebhook'>,
  settings: { receivingKey: string; publicBaseUrl: string; webhookSecret: string },
  retry: WebhookRetry = DEFAULT_WEBHOOK_RETRY,
): Promise<WebhookRegistration> {
  const url = pixWebhookUrl(settings.publicBaseUrl, settings.webhookSecret);
  return ensureWebhookAt(client, settings.receivingKey, url, retry);
}

/** Pix Automático's webhooks (webhookrec, webhookcobr) at the same URL: subscriptions' notices come beside /pix. */
export function ensureSubscriptionWebhooks(
  client: Pick<PixApiClient, 'automatico'>,
  settings: { publicBaseUrl: string; webhookSecret: string },
  retry: WebhookRetry = DEFAULT_WEBHOOK_RETRY,
): Promise<{ rec: WebhookRegistration; cobr: WebhookRegistration }> {
  return ensureRecurrenceWebhooksAt(
    client.automatico,
    pixWebhookUrl(settings.publicBaseUrl, settings.webhookSecret),
    retry,
  );
}

/**
 * The keys a webhook must be registered on: the receiving key (received Pix) and, when money goes
 * out through Efí, the paying key (Efí reports a send only there and refuses sends from a key
 * without one). Often one key.
 */
export function webhookKeys(config: {
  pixApi: { receivingKey: string };
  pixTransfers: { api: string; senderKey: string };
}): string[] {
  const keys = [config.pixApi.receivingKey];
  if (config.pixTransfers.api === 'efi') keys.push(config.pixTransfers.senderKey);
  return [...new Set(keys)];
}

/**
 * Registers where the PSP notifies Pix received on our key (API Pix PUT /webhook/{chave}),
 * unless it already points there: idempotent at every boot and from the CLI
 * (`npm run gateway -- provider webhook register`). The URL carries PIX_WEBHOOK_SECRET, so it is
 * never printed or logged; what is reported is whether it changed.
 */
import type { PixApiClient } from '../activities/provider/pixApi';
import { pixWebhookUrl } from '../api/charges/pixApiCallbacks/path';

export type WebhookRegistration = 'registered' | 'already registered';

export async function ensurePixWebhook(
  client: Pick<PixApiClient, 'getWebhook' | 'putWebhook'>,
  settings: { receivingKey: string; publicBaseUrl: string; webhookSecret: string },
): Promise<WebhookRegistration> {
  const url = pixWebhookUrl(settings.publicBaseUrl, settings.webhookSecret);
  const current = await client.getWebhook(settings.receivingKey);
  if (current?.webhookUrl === url) return 'already registered';
  await client.putWebhook(settings.receivingKey, url);
  return 'registered';
}

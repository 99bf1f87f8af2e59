/**
 * Registers where the PSP notifies Pix received on our key (API Pix PUT /webhook/{chave}),
 * unless it already points there: idempotent at every boot and from the CLI
 * (`npm run gateway -- provider webhook register`). The URL carries PIX_WEBHOOK_SECRET, so it is
 * never printed or logged; what is reported is whether it changed. A transient answer (a timeout,
 * a 5xx, a 429) is asked again a few times with a growing wait: a PSP slow for a moment at boot
 * must not stop the worker from starting; a refusal is thrown at once.
 */
import type { PixApiClient } from '../activities/provider/pixApi';
import { ProviderError } from '../core/provider';
import { pixWebhookUrl } from '../core/pix/callbackPath';

export type WebhookRegistration = 'registered' | 'already registered';

export async function ensurePixWebhook(
  client: Pick<PixApiClient, 'getWebhook' | 'putWebhook'>,
  settings: { receivingKey: string; publicBaseUrl: string; webhookSecret: string },
  retry: WebhookRetry = DEFAULT_RETRY,
): Promise<WebhookRegistration> {
  const url = pixWebhookUrl(settings.publicBaseUrl, settings.webhookSecret);
  return ensureWebhookAt(client, settings.receivingKey, url, retry);
}

export interface WebhookRetry {
  attempts: number;
  firstWaitMs: number;
}

const DEFAULT_RETRY: WebhookRetry = { attempts: 5, firstWaitMs: 500 };

/**
 * The webhook of `key` at the PSP points at `url` once this resolves: the platform's (above) and
 * a merchant connection's (`gateway connection webhook`, cli/connection.ts) alike. The URL holds
 * a secret: callers print neither it nor anything the PSP says about it.
 */
export async function ensureWebhookAt(
  client: Pick<PixApiClient, 'getWebhook' | 'putWebhook'>,
  key: string,
  url: string,
  retry: WebhookRetry = DEFAULT_RETRY,
): Promise<WebhookRegistration> {
  for (let attempt = 1; ; attempt++) {
    try {
      // GET then PUT, both idempotent: a retry after a PUT whose answer was lost finds it there.
      const current = await client.getWebhook(key);
      if (current?.webhookUrl === url) return 'already registered';
      await client.putWebhook(key, url);
      return 'registered';
    } catch (err) {
      if (!(err instanceof ProviderError && err.transient) || attempt >= retry.attempts) throw err;
      const wait = err.retryAfterMs ?? retry.firstWaitMs * 2 ** (attempt - 1);
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
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

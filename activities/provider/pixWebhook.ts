/**
 * The webhook of a Pix key at the PSP (API Pix GET and PUT /webhook/{chave}) made to point at a
 * URL, left alone when it already does: the platform's at every worker boot
 * (workers/ensurePixWebhook.ts) and a merchant connection's (the CLI's `connection webhook`, the
 * application API's POST /dashboard/connection/webhook through activities/connections/), with
 * Pix Automático's two beside each. The URL
 * holds a secret: callers print neither it nor anything the PSP says about it. A transient answer
 * (a timeout, a 5xx, a 429) is asked again a few times with a growing wait; a refusal is thrown at once.
 */
import { ProviderError } from '../../core/provider';
import type { PixApiClient, PixAutomaticoClient } from './pixApi';

export type WebhookRegistration = 'registered' | 'already registered';

export interface WebhookRetry {
  attempts: number;
  firstWaitMs: number;
}

export const DEFAULT_WEBHOOK_RETRY: WebhookRetry = { attempts: 5, firstWaitMs: 500 };

export function ensureWebhookAt(
  client: Pick<PixApiClient, 'getWebhook' | 'putWebhook'>,
  key: string,
  url: string,
  retry: WebhookRetry = DEFAULT_WEBHOOK_RETRY,
): Promise<WebhookRegistration> {
  return withRetry(
    () => client.getWebhook(key),
    () => client.putWebhook(key, url),
    url,
    retry,
  );
}

/**
 * Pix Automático's two webhooks (PUT /webhookrec, PUT /webhookcobr) at the same URL as the Pix
 * one: the PSP posts recurrences to `${url}/rec` and cycle charges to `${url}/cobr`, beside
 * `${url}/pix` (api/charges/pixApiCallbacks/router.ts).
 */
export async function ensureRecurrenceWebhooksAt(
  client: Pick<
    PixAutomaticoClient,
    'getRecurrenceWebhook' | 'putRecurrenceWebhook' | 'getCycleChargeWebhook' | 'putCycleChargeWebhook'
  >,
  url: string,
  retry: WebhookRetry = DEFAULT_WEBHOOK_RETRY,
): Promise<{ rec: WebhookRegistration; cobr: WebhookRegistration }> {
  const rec = await withRetry(
    () => client.getRecurrenceWebhook(),
    () => client.putRecurrenceWebhook(url),
    url,
    retry,
  );
  const cobr = await withRetry(
    () => client.getCycleChargeWebhook(),
    () => client.putCycleChargeWebhook(url),
    url,
    retry,
  );
  return { rec, cobr };
}

/**
 * A merchant connection's three webhooks at its own notification URL (issue 39): API Pix's for the
 * connection's Pix key (the PSP posts `${url}/pix`) and Pix Automático's webhookrec and webhookcobr
 * (`${url}/rec`, `${url}/cobr`: api/connections/notifications/router.ts), so a connected merchant's
 * subscriptions are notified as its charges are. `already registered` only when all three were.
 */
export async function ensureConnectionWebhooksAt(
  client: Pick<PixApiClient, 'getWebhook' | 'putWebhook' | 'automatico'>,
  key: string,
  url: string,
  retry: WebhookRetry = DEFAULT_WEBHOOK_RETRY,
): Promise<WebhookRegistration> {
  const pix = await ensureWebhookAt(client, key, url, retry);
  const { rec, cobr } = await ensureRecurrenceWebhooksAt(client.automatico, url, retry);
  return [pix, rec, cobr].every((o) => o === 'already registered') ? 'already registered' : 'registered';
}

async function withRetry(
  get: () => Promise<{ webhookUrl: string } | null>,
  put: () => Promise<void>,
  url: string,
  retry: WebhookRetry,
): Promise<WebhookRegistration> {
  for (let attempt = 1; ; attempt++) {
    try {
      // GET then PUT, both idempotent: a retry after a PUT whose answer was lost finds it there.
      const current = await get();
      if (current?.webhookUrl === url) return 'already registered';
      await put();
      return 'registered';
    } catch (err) {
      if (!(err instanceof ProviderError && err.transient) || attempt >= retry.attempts) throw err;
      const wait = err.retryAfterMs ?? retry.firstWaitMs * 2 ** (attempt - 1);
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

/**
 * Where the PSP notifies us of Pix received (API Pix's webhook): the URL we register with
 * PUT /webhook/{chave} is `${PUBLIC_BASE_URL}/webhooks/pix-api/${PIX_WEBHOOK_SECRET}`, and the
 * PSP POSTs to it plus "/pix" (the standard's rule). The secret segment is what tells the PSP's
 * calls from anyone else's; it is a secret like a password, so it never reaches a log line.
 */
export const PIX_API_CALLBACK_PATH = '/webhooks/pix-api';

/** The URL to register at the PSP (no trailing slash: the PSP appends "/pix" as written). */
export function pixWebhookUrl(publicBaseUrl: string, webhookSecret: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}${PIX_API_CALLBACK_PATH}/${webhookSecret}`;
}

/** A request path with the secret segment of this route blanked, for logs. */
export function withoutWebhookSecret(path: string): string {
  return path.startsWith(`${PIX_API_CALLBACK_PATH}/`)
    ? path.replace(/^(\/webhooks\/pix-api\/)[^/]*/, '$1:secret')
    : path;
}

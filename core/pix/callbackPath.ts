/**
 * Where the PSP notifies us of Pix received (API Pix's webhook): the URL we register with
 * PUT /webhook/{chave} is `${PUBLIC_BASE_URL}/webhooks/pix-api/${PIX_WEBHOOK_SECRET}`, and the
 * PSP POSTs to it plus "/pix" (the standard's rule). The secret segment is what tells the PSP's
 * calls from anyone else's; it is a secret like a password, so it never reaches a log line.
 *
 * A merchant's own PSP connection (the connected account model) has a URL of its own under the
 * same prefix: `${PUBLIC_BASE_URL}/webhooks/pix-api/connections/<connection id>/<its path secret>`,
 * so a notification names the connection it came for.
 */
export const PIX_API_CALLBACK_PATH = '/webhooks/pix-api';

/** The prefix of the connections' notification URLs (api/connections/notifications/router.ts). */
export const CONNECTION_CALLBACK_PATH = `${PIX_API_CALLBACK_PATH}/connections`;

/** The URL to register at the PSP (no trailing slash: the PSP appends "/pix" as written). */
export function pixWebhookUrl(publicBaseUrl: string, webhookSecret: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}${PIX_API_CALLBACK_PATH}/${webhookSecret}`;
}

/** The URL to register at a merchant's own PSP for its connection (the PSP appends "/pix"). */
export function connectionWebhookUrl(publicBaseUrl: string, connectionId: string, pathSecret: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}${CONNECTION_CALLBACK_PATH}/${connectionId}/${pathSecret}`;
}

/** Where Efí notifies a connected merchant's boleto (API Cobranças' notification_url), naming our charge. */
export function connectionBoletoNotificationUrl(
  publicBaseUrl: string,
  connectionId: string,
  pathSecret: string,
  chargeId: string,
): string {
  return `${connectionWebhookUrl(publicBaseUrl, connectionId, pathSecret)}/boletos/${encodeURIComponent(chargeId)}`;
}

/**
 * Whether a request path is a connection's boleto notification route (`…/connections/:id/:secret/
 * boletos/:chargeId`): Efí posts those form-encoded, so the app's JSON-only gate lets them by and
 * the route reads either form itself (api/connections/notifications/router.ts).
 */
export function isConnectionBoletoNoticePath(path: string): boolean {
  if (!path.toLowerCase().startsWith(`${CONNECTION_CALLBACK_PATH}/`)) return false;
  const segments = path.slice(CONNECTION_CALLBACK_PATH.length + 1).split('/');
  return segments.length === 4 && segments[2].toLowerCase() === 'boletos' && segments.every((s) => s !== '');
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A request path with the secret segment of these routes blanked, for logs. A connection's id is
 * kept (it names the connection, it opens nothing) when it is one; any other text in its place is
 * blanked too, since a misconfigured caller may have put the secret there.
 */
export function withoutWebhookSecret(path: string): string {
  if (path.startsWith(`${CONNECTION_CALLBACK_PATH}/`)) {
    const segments = path.slice(CONNECTION_CALLBACK_PATH.length + 1).split('/');
    if (!UUID.test(segments[0])) segments[0] = ':connectionId';
    if (segments.length > 1) segments[1] = ':secret';
    return `${CONNECTION_CALLBACK_PATH}/${segments.join('/')}`;
  }
  return path.startsWith(`${PIX_API_CALLBACK_PATH}/`)
    ? path.replace(/^(\/webhooks\/pix-api\/)[^/]*/, '$1:secret')
    : path;
}

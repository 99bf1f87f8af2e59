/**
 * The e-mail that tells a merchant's owners their webhook endpoint was disabled because nothing
 * reached it for 3 days: which endpoint, since when it fails, the last failure in our own words
 * (never the receiver's answer, which we do not control), and how to re-enable it. It never
 * carries the webhook secret, nor the URL's query string (where receivers often put tokens):
 * mailboxes and mail servers keep what they are sent.
 */
export interface DisabledEndpoint {
  id: string;
  url: string;
  disabledAt: Date;
  /** The first failed attempt after the last success (null when none is recorded). */
  failingSince: Date | null;
  lastStatusCode: number | null;
  /** Our recorded error; only its part before the receiver's answer is used. */
  lastError: string | null;
}

const when = (at: Date) => `${at.toISOString().replace(/\.\d{3}Z$/, 'Z')} (UTC)`;

/** The URL without credentials, query or fragment. */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}${u.search ? ' (query string not shown)' : ''}`;
  } catch {
    return '(an invalid URL)';
  }
}

/** The last failure in our words: the status, or our own description of a failed connection. */
export function describeFailure(statusCode: number | null, error: string | null): string {
  if (statusCode !== null) return `the receiver answered HTTP ${statusCode}`;
  if (!error) return 'unknown';
  if (error.startsWith('DESTINATION_NOT_ALLOWED')) return 'the destination is not allowed (an internal address)';
  if (error.startsWith('no answer within')) return error;
  const code = /^connection failed: ([A-Z0-9_]+)$/.exec(error)?.[1];
  return code ? `the connection failed (${code})` : 'the request failed';
}

export function endpointDisabledNotice(e: DisabledEndpoint): { subject: string; text: string } {
  return {
    subject: 'Your webhook endpoint was disabled: no delivery succeeded for 3 days',
    text:
      `Your Pix Gateway webhook endpoint ${e.id} (${shownUrl(e.url)}) was disabled at ${when(e.disabledAt)}: ` +
      `no event delivered to it succeeded for 3 days, so no new events are sent to it.\n\n` +
      `It has been failing since ${e.failingSince ? when(e.failingSince) : 'at least 3 days ago'}. ` +
      `The last attempt: ${describeFailure(e.lastStatusCode, e.lastError)}.\n\n` +
      `To re-enable it once your receiver answers 2xx again: PATCH /sellers/webhooks/${e.id} with ` +
      `{"active": true}. The events it missed while disabled (up to 3 days back) are then sent to it ` +
      `again, oldest first. Delivery history: GET /sellers/webhooks/${e.id}/deliveries.`,
  };
}

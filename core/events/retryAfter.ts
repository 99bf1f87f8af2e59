/**
 * A receiver's `Retry-After` (RFC 9110 §10.2.3) on a 429 or 503: how long it asked us to wait,
 * as delta-seconds or an HTTP-date. Other statuses are ignored (the header means something else
 * on a 3xx, and nothing on other failures). Capped at the schedule's longest gap (6 h): a
 * receiver cannot park a delivery for days, and the 3-day window still applies on top
 * (workflows/events/webhookDelivery.ts).
 */
import { MAX_RETRY_DELAY_MS } from './retrySchedule';

export const RETRY_AFTER_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/** The wait asked for in ms (0 < ms ≤ 6 h), or null when there is none to honour. */
export function retryAfterMs(statusCode: number, header: string | null | undefined, nowMs: number): number | null {
  if (!RETRY_AFTER_STATUSES.has(statusCode) || !header) return null;
  const value = header.trim();
  let ms: number;
  if (/^\d+$/.test(value)) ms = Number(value) * 1000;
  else {
    // An HTTP-date: IMF-fixdate and the two obsolete forms all parse with Date.parse.
    const at = Date.parse(value);
    if (!Number.isFinite(at) || !/[a-z]/i.test(value)) return null;
    ms = at - nowMs;
  }
  if (!Number.isFinite(ms) || ms <= 0) return null;
  return Math.min(ms, MAX_RETRY_DELAY_MS);
}

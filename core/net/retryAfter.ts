/**
 * The HTTP `Retry-After` header (RFC 9110 §10.2.3) as a delay in milliseconds: either
 * delay-seconds (`120`) or an HTTP-date (`Wed, 21 Oct 2015 07:28:00 GMT`), measured from `nowMs`.
 * A date in the past is 0 (retry now); anything unparseable is null (the caller keeps its own
 * back-off). Pure.
 */
const DELAY_SECONDS_RE = /^\d+$/;

export function retryAfterMs(header: string | null | undefined, nowMs: number): number | null {
  if (header === null || header === undefined) return null;
  const value = header.trim();
  if (value === '') return null;
  if (DELAY_SECONDS_RE.test(value)) {
    const seconds = Number(value);
    return Number.isSafeInteger(seconds * 1000) ? seconds * 1000 : null;
  }
  // HTTP-dates start with a day name (IMF-fixdate, RFC 850, asctime); Date.parse alone would
  // also take "-1" or "2025" as dates.
  if (!/^[A-Za-z]{3,9},? /.test(value)) return null;
  const at = Date.parse(value);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - nowMs);
}

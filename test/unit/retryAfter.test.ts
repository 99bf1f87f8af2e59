import { retryAfterMs } from '../../core/events/retryAfter';
import { MAX_RETRY_DELAY_MS } from '../../core/events/retrySchedule';

const now = Date.parse('2026-11-26T03:00:00Z');

it('reads delta-seconds and HTTP-dates on a 429 or 503', () => {
  expect(retryAfterMs(429, '120', now)).toBe(120_000);
  expect(retryAfterMs(503, ' 30 ', now)).toBe(30_000);
  expect(retryAfterMs(503, 'Thu, 26 Nov 2026 03:10:00 GMT', now)).toBe(600_000);
});

it('caps the wait at the schedule’s longest gap (6 h)', () => {
  expect(retryAfterMs(429, String(7 * 86_400), now)).toBe(MAX_RETRY_DELAY_MS);
  expect(retryAfterMs(503, 'Fri, 27 Nov 2026 03:00:00 GMT', now)).toBe(MAX_RETRY_DELAY_MS);
});

it('ignores other statuses, a date in the past, zero and anything unparseable', () => {
  expect(retryAfterMs(500, '120', now)).toBeNull();
  expect(retryAfterMs(302, '120', now)).toBeNull();
  expect(retryAfterMs(429, undefined, now)).toBeNull();
  expect(retryAfterMs(429, '0', now)).toBeNull();
  expect(retryAfterMs(429, '-5', now)).toBeNull();
  expect(retryAfterMs(429, '1.5', now)).toBeNull();
  expect(retryAfterMs(503, 'Wed, 25 Nov 2026 03:00:00 GMT', now)).toBeNull();
  expect(retryAfterMs(503, 'soon', now)).toBeNull();
  expect(retryAfterMs(503, '2026', now)).toBe(2_026_000);
});

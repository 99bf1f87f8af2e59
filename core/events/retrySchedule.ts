/**
 * When a failed delivery is tried again: 10 s, doubling, capped at 6 h between attempts, for up
 * to 3 days after the first attempt (23 attempts in all). Then the delivery is FAILED.
 */
export const FIRST_RETRY_DELAY_MS = 10_000;
export const MAX_RETRY_DELAY_MS = 6 * 3_600_000;
export const DELIVERY_WINDOW_MS = 3 * 86_400_000;
/** A 2xx must arrive within this time. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** At most this much of a receiver's answer is read (and 500 characters of it kept). */
export const MAX_RESPONSE_BYTES = 4_096;

export function retryDelayMs(failedAttempts: number): number {
  return Math.min(FIRST_RETRY_DELAY_MS * 2 ** (failedAttempts - 1), MAX_RETRY_DELAY_MS);
}

/** The full schedule (offsets from the first attempt, in ms) — for docs and tests. */
export function retryOffsetsMs(): number[] {
  const offsets = [0];
  for (let n = 1; ; n++) {
    const next = offsets[offsets.length - 1] + retryDelayMs(n);
    if (next > DELIVERY_WINDOW_MS) return offsets;
    offsets.push(next);
  }
}

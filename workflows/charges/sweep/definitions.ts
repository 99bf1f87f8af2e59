/** The sweep for lost payment notifications: its Schedule, one per task queue (deployment). */
export const pixSweepScheduleId = (taskQueue: string) => `pix-payment-sweep-${taskQueue}`;

/** How far back each run reads the PSP's list: several runs overlap, so a late listing or a skipped run loses nothing. */
export const PIX_SWEEP_LOOKBACK_MS = 10 * 60_000;

/** The janitor's Schedule, created idempotently at worker start: one per task queue (deployment), like the outbox dispatcher. */
export const janitorScheduleId = (taskQueue: string) => `janitor-${taskQueue}`;
export const janitorEvery = '10 minutes';

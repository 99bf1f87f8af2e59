/** The janitor's Schedule, created idempotently at worker start. */
export const janitorScheduleId = 'janitor';
export const janitorEvery = '10 minutes';

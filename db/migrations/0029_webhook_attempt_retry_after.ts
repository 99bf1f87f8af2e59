/**
 * The wait a receiver asked for with `Retry-After` (429/503), kept with its attempt: a retried
 * attempt activity answers the recorded outcome, and the workflow's next sleep depends on it.
 */
import type { Migration } from '../migrator';

export const webhookAttemptRetryAfter: Migration = {
  name: '0029_webhook_attempt_retry_after',
  async up({ context: sequelize }) {
    await sequelize.query(`ALTER TABLE webhook_delivery_attempts ADD COLUMN retry_after_ms INTEGER`);
  },
};

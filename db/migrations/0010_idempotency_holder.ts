/**
 * Idempotency claims get a holder token: only the request that holds a claim may extend its
 * lock, store its answer or free it, so a holder that lost its claim can never overwrite the
 * answer of the request that took over.
 */
import type { Migration } from '../migrator';

export const idempotencyHolder: Migration = {
  name: '0010_idempotency_holder',
  async up({ context: sequelize }) {
    await sequelize.query(`ALTER TABLE idempotency_records ADD COLUMN holder UUID`);
  },
};

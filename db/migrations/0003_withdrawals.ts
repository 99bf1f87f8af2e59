/** Withdrawals (saques). Filled in by the withdrawals change. */
import type { Migration } from '../migrator';

export const withdrawals: Migration = {
  name: '0003_withdrawals',
  async up({ context: sequelize }) {
    await sequelize.query(`SELECT 1`);
  },
};

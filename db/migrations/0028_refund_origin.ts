/**
 * A refund ordered by an accepted Pix infraction (MED) names it: the central bank's devolução is
 * sent even while the merchant is frozen, so the send step must tell it apart
 * from a refund the merchant asked for.
 */
import type { Migration } from '../migrator';

export const refundOrigin: Migration = {
  name: '0028_refund_origin',
  async up({ context: sequelize }) {
    await sequelize.query(`ALTER TABLE refunds ADD COLUMN med_infraction_id UUID REFERENCES med_infractions(id)`);
  },
};

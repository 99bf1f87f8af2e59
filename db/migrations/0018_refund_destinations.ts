/**
 * Where a refund goes when it is not a devolução: a boleto paid by barcode has no Pix payment to
 * return, so its refund is a Pix transfer to a key the merchant gives (the payer's).
 */
import type { Migration } from '../migrator';

export const refundDestinations: Migration = {
  name: '0018_refund_destinations',
  async up({ context: sequelize }) {
    await sequelize.query(`ALTER TABLE refunds ADD COLUMN destination JSONB`);
  },
};

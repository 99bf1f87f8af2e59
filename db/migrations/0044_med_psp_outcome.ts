/**
 * MED 2.0 (issue 38): the receiving PSP decides a defended case. After the merchant's REJECT (its
 * defence) the case is IN_DEFENCE: its holds and debts stay, recovery goes on, until the PSP
 * upholds the claim (psp_outcome UPHELD: the devolução, status ACCEPTED), dismisses it (DISMISSED:
 * everything released, status REJECTED) or cancels the case (CANCELLED, at any time before it is
 * decided: everything released, status CANCELLED). psp_decided_at is when the gateway recorded it.
 * Rows decided before (REJECTED at the merchant's answer) keep psp_outcome null.
 */
import type { Migration } from '../migrator';

export const medPspOutcome: Migration = {
  name: '0044_med_psp_outcome',
  async up({ context: sequelize }) {
    await sequelize.query(`
      ALTER TABLE med_infractions DROP CONSTRAINT med_infractions_status_check;
      ALTER TABLE med_infractions ADD CONSTRAINT med_infractions_status_check
        CHECK (status IN ('OPEN','IN_DEFENCE','ACCEPTED','REJECTED','CANCELLED'));
      ALTER TABLE med_infractions
        ADD COLUMN psp_outcome TEXT CHECK (psp_outcome IN ('UPHELD','DISMISSED','CANCELLED')),
        ADD COLUMN psp_decided_at TIMESTAMPTZ,
        ADD CONSTRAINT med_infractions_psp_outcome_at CHECK ((psp_outcome IS NULL) = (psp_decided_at IS NULL));
    `);
  },
};

/**
 * MED 2.0 (issue 38): who a claim reaches and what each party holds and owes. One JSON array per
 * infraction ([{merchantId, shareCents, heldCents, owedCents}], core/med/claim.ts ClaimParty), the
 * owner first, written under the infraction row's lock with the ledger entry it explains. Null for
 * an infraction blocked by MED 1 (the owner only, blocked_cents) and for a charge received on a
 * connection (its PSP blocks the merchant's own account; the gateway keeps no debt).
 */
import type { Migration } from '../migrator';

export const medClaimParties: Migration = {
  name: '0040_med_claim_parties',
  async up({ context: sequelize }) {
    await sequelize.query(`
      ALTER TABLE med_infractions ADD COLUMN parties JSONB;
      -- The cases a later credit to a merchant may owe to (activities/ledger/medRecovery.ts).
      CREATE INDEX med_infractions_parties ON med_infractions USING gin (parties jsonb_path_ops)
        WHERE parties IS NOT NULL;
    `);
  },
};

/**
 * The account a charge lives at (issue 37): null for the platform's account (PIX_API_*), else
 * the merchant's own PSP connection it was issued on. Fixed at issue: every later call about the
 * charge (confirming its payment, closing it, returning it) goes to that same account, whatever
 * the merchant registers or revokes afterwards. A revoked connection's charges fail with a clear
 * error instead of being asked of another account, which knows nothing of them.
 *
 * A payout batch likewise keeps the account it is paid from (its merchant's connection at
 * creation, or null), so a send and every later look-up of it go to the same account.
 *
 * `account_number` is the connection's account number at its PSP (Efí's `conta`), what another
 * account's Split Pix names it by; null until the operator gives it.
 */
import type { Migration } from '../migrator';

export const chargePspConnection: Migration = {
  name: '0035_charge_psp_connection',
  async up({ context: sequelize }) {
    await sequelize.query(`
      ALTER TABLE charges ADD COLUMN psp_connection_id UUID REFERENCES psp_connections(id);
      CREATE INDEX charges_psp_connection ON charges (psp_connection_id) WHERE psp_connection_id IS NOT NULL;
      ALTER TABLE payout_batches ADD COLUMN psp_connection_id UUID REFERENCES psp_connections(id);
      ALTER TABLE psp_connections ADD COLUMN account_number TEXT;
    `);
  },
};

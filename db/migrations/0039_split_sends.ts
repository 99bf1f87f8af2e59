/**
 * Split shares sent from the charge owner's own account (issue 37, item 3): a connected merchant's
 * split recipient whose account is at another PSP cannot be paid by the PSP's Split Pix, so its
 * share stays in the owner's account at settlement and is sent from there by Pix, with the
 * owner's connection, to the recipient's connection's key.
 *
 * One row per charge and recipient, its id the send's idempotency key (core/splitSends):
 *  - AWAITING_PAYMENT: written when the charge is issued, with the split configuration that leaves
 *    the share in the owner's account: what was decided then is what settlement does, whatever
 *    connections change meanwhile (no foreign key to charges: the cob and its configuration are
 *    made before the charge row is recorded; a charge never recorded is never paid, and its
 *    rows never leave this status);
 *  - PENDING: set in the DB transaction that credits the payment (its ledger entry reserves the
 *    share in the owner's account), so a send is owed exactly when the money arrived;
 *  - SENT or FAILED: the provider's record of the send decided it (a FAILED share stays reserved).
 */
import type { Migration } from '../migrator';

export const splitSends: Migration = {
  name: '0039_split_sends',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE TABLE split_sends (
        id UUID PRIMARY KEY,
        charge_id UUID NOT NULL,
        merchant_id UUID NOT NULL REFERENCES merchants(id),
        recipient_merchant_id UUID NOT NULL REFERENCES merchants(id),
        psp_connection_id UUID NOT NULL REFERENCES psp_connections(id),
        recipient_connection_id UUID NOT NULL REFERENCES psp_connections(id),
        pix_key TEXT NOT NULL,
        pix_key_type TEXT NOT NULL,
        recipient_name TEXT NOT NULL,
        recipient_document TEXT,
        amount_cents BIGINT NOT NULL CHECK (amount_cents > 0),
        status TEXT NOT NULL CHECK (status IN ('AWAITING_PAYMENT', 'PENDING', 'SENT', 'FAILED')),
        provider_transfer_id TEXT,
        end_to_end_id TEXT,
        failure_code TEXT,
        failure_reason TEXT,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        settled_at TIMESTAMPTZ,
        UNIQUE (charge_id, recipient_merchant_id)
      );
      CREATE INDEX split_sends_pending ON split_sends (created_at) WHERE status = 'PENDING';
      CREATE INDEX split_sends_connection_settled ON split_sends (psp_connection_id, settled_at);
    `);
  },
};

/**
 * Pix infractions (MED): one row per infraction the provider reports against a
 * paid charge of ours. The row is the infraction's state; its money moves (block, release, the
 * devolução through the refund flow) are ledger entries keyed by the row id.
 */
import type { Migration } from '../migrator';

export const medInfractions: Migration = {
  name: '0026_med_infractions',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE TABLE med_infractions (
        id UUID PRIMARY KEY,
        -- The provider's id: a sync that sees it twice inserts it once.
        provider_infraction_id TEXT NOT NULL UNIQUE,
        merchant_id UUID NOT NULL REFERENCES merchants(id),
        charge_id UUID NOT NULL REFERENCES charges(id),
        end_to_end_id TEXT NOT NULL,
        disputed_cents BIGINT NOT NULL CHECK (disputed_cents > 0),
        -- What was really moved available → blocked: less than disputed when the balance did not cover it.
        blocked_cents BIGINT NOT NULL DEFAULT 0 CHECK (blocked_cents >= 0),
        blocked_at TIMESTAMPTZ,
        reason TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'OPEN' CHECK (status IN ('OPEN','ACCEPTED','REJECTED')),
        decision TEXT CHECK (decision IN ('ACCEPT','REJECT')),
        justification TEXT,
        -- The user who decided, or 'DEFAULT' when the deadline passed unanswered.
        decided_by TEXT,
        decided_at TIMESTAMPTZ,
        opened_at TIMESTAMPTZ NOT NULL,
        deadline_at TIMESTAMPTZ NOT NULL,
        refund_id UUID,
        -- What the devolução returns: the disputed amount, or less when earlier refunds left less to return.
        refund_cents BIGINT,
        refund_status TEXT,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX med_infractions_merchant_created ON med_infractions (merchant_id, created_at DESC, id DESC);
    `);
  },
};

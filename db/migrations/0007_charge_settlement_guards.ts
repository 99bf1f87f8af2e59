/**
 * Guards around charge settlement:
 * - charge_tombstones: written when the workflow gives up issuing a charge, so a record step
 *   that commits late (a timed-out attempt still running on a worker) finds it and commits
 *   nothing: no ghost PENDING charge, no charge.created for a request answered 502.
 * - payment_alerts: confirmations the provider did not back up (forged or premature), paid
 *   amounts or references that differ from the charge, a second payment for a PAID charge,
 *   a charge the provider has no record of. Nothing is credited for them; an operator reviews.
 */
import type { Migration } from '../migrator';

export const chargeSettlementGuards: Migration = {
  name: '0007_charge_settlement_guards',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE TABLE charge_tombstones (
        charge_id UUID PRIMARY KEY,
        merchant_id UUID NOT NULL REFERENCES merchants(id),
        reason TEXT NOT NULL,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );

      CREATE TABLE payment_alerts (
        id BIGSERIAL PRIMARY KEY,
        charge_id UUID NOT NULL REFERENCES charges(id),
        kind TEXT NOT NULL CHECK (kind IN ('NOT_CONFIRMED','AMOUNT_MISMATCH','REFERENCE_MISMATCH','DUPLICATE_PAYMENT','NO_PROVIDER_RECORD')),
        end_to_end_id TEXT,
        amount_cents BIGINT,
        details JSONB NOT NULL DEFAULT '{}',
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      -- One alert per charge, kind and claimed payment: replays of a callback add nothing.
      CREATE UNIQUE INDEX payment_alerts_once ON payment_alerts (charge_id, kind, COALESCE(end_to_end_id, ''));
    `);
  },
};

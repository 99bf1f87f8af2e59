/**
 * One idempotency key, one effect, bound in the database: a refund, a settlement and a withdrawal
 * carry the key they were made under, unique per charge (refunds) or per merchant (settlements,
 * withdrawals), as payout batches already do. Even if every guard before it fails
 * (a lost claim, a takeover, a bug), a second row, and so a second transfer, under one key cannot
 * be stored. A settlement's key is the settlement's: its withdrawal row no longer repeats it, so a
 * merchant's withdrawal and settlement may use the same key (they are different requests).
 *
 * Rows that already break the rule (only a takeover that made its effect twice could have made
 * them) stop the migration with their ids: they are money to look at by hand, not to drop.
 */
import type { Migration } from '../migrator';

export const idempotencyKeyBinding: Migration = {
  name: '0032_idempotency_key_binding',
  async up({ context: sequelize }) {
    await sequelize.query(`
      ALTER TABLE settlements ADD COLUMN idempotency_key TEXT;
      UPDATE settlements s SET idempotency_key = w.idempotency_key FROM withdrawals w WHERE w.id = s.withdrawal_id;
      UPDATE withdrawals SET idempotency_key = NULL WHERE id IN (SELECT withdrawal_id FROM settlements);
      DO $$
      DECLARE found TEXT;
      BEGIN
        SELECT string_agg(ids, '; ') INTO found FROM (
          SELECT 'refunds ' || string_agg(id::text, ',') AS ids FROM refunds
            WHERE idempotency_key IS NOT NULL GROUP BY charge_id, idempotency_key HAVING count(*) > 1
          UNION ALL
          SELECT 'settlements ' || string_agg(id::text, ',') FROM settlements
            WHERE idempotency_key IS NOT NULL GROUP BY merchant_id, idempotency_key HAVING count(*) > 1
          UNION ALL
          SELECT 'withdrawals ' || string_agg(id::text, ',') FROM withdrawals
            WHERE idempotency_key IS NOT NULL GROUP BY merchant_id, idempotency_key HAVING count(*) > 1
        ) d;
        IF found IS NOT NULL THEN
          RAISE EXCEPTION 'rows made twice under one idempotency key (settle them by hand first): %', found;
        END IF;
      END $$;
      CREATE UNIQUE INDEX refunds_one_per_key ON refunds (charge_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
      CREATE UNIQUE INDEX settlements_one_per_key ON settlements (merchant_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
      CREATE UNIQUE INDEX withdrawals_one_per_key ON withdrawals (merchant_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
    `);
  },
};

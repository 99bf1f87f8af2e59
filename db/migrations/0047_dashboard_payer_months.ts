/**
 * Top payers of a long period from a monthly rollup per payer (GET /dashboard/summary?period=365d).
 *
 * Grouping a year of a large merchant's paid charges by payer read every one of them from the
 * narrow index charges_merchant_payers (migration 0022): ~800,000 entries, 206 ms p99 for the
 * largest of issue 40's bench (10,000,000 charges of 1,000 merchants), the one route over 200 ms.
 * `dashboard_payer_months` holds, per (merchant, São Paulo month of paid_at, payer_key), the
 * payments and the gross they paid: the very rows and amount that query groups (PAID, a payer_key,
 * a paid_at; gross_paid_cents), so whole months of a period read a few thousand rows per month and
 * only the period's partial first and last months read the index (db/dashboard/figureStore.ts).
 *
 * Kept as dashboard_daily is: a trigger on charges, in the transaction that changes the charge,
 * subtracting the old row's contribution and adding the new one's (a charge PAID then changed,
 * re-dated, re-keyed by its payer_snapshot, moved to another merchant, or deleted counts once);
 * updates that touch none of its columns skip it. Rows that fall to zero stay (zero payments, zero
 * amount) and the readers skip them. Existing charges are rolled up once here.
 */
import type { Migration } from '../migrator';

export const dashboardPayerMonths: Migration = {
  name: '0047_dashboard_payer_months',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE TABLE dashboard_payer_months (
        merchant_id UUID NOT NULL REFERENCES merchants(id),
        month DATE NOT NULL,
        payer_key TEXT NOT NULL,
        payments BIGINT NOT NULL DEFAULT 0,
        amount_cents BIGINT NOT NULL DEFAULT 0,
        PRIMARY KEY (merchant_id, month, payer_key)
      );

      CREATE FUNCTION dashboard_payer_apply(c charges, sign INT) RETURNS void AS $$
      BEGIN
        IF c.status = 'PAID' AND c.payer_key IS NOT NULL AND c.paid_at IS NOT NULL THEN
          INSERT INTO dashboard_payer_months AS t (merchant_id, month, payer_key, payments, amount_cents)
          VALUES (c.merchant_id, date_trunc('month', c.paid_at AT TIME ZONE 'America/Sao_Paulo')::date, c.payer_key, sign, sign * c.gross_paid_cents)
          ON CONFLICT (merchant_id, month, payer_key) DO UPDATE SET
            payments = t.payments + EXCLUDED.payments,
            amount_cents = t.amount_cents + EXCLUDED.amount_cents;
        END IF;
      END $$ LANGUAGE plpgsql;

      CREATE FUNCTION dashboard_payer_rollup() RETURNS trigger AS $$
      BEGIN
        IF TG_OP = 'UPDATE' AND (OLD.status, OLD.paid_at, OLD.gross_paid_cents, OLD.payer_key, OLD.merchant_id)
            IS NOT DISTINCT FROM (NEW.status, NEW.paid_at, NEW.gross_paid_cents, NEW.payer_key, NEW.merchant_id) THEN
          RETURN NULL;
        END IF;
        IF TG_OP IN ('UPDATE', 'DELETE') THEN PERFORM dashboard_payer_apply(OLD, -1); END IF;
        IF TG_OP IN ('UPDATE', 'INSERT') THEN PERFORM dashboard_payer_apply(NEW, 1); END IF;
        RETURN NULL;
      END $$ LANGUAGE plpgsql;
      CREATE TRIGGER charges_dashboard_payer_rollup AFTER INSERT OR UPDATE OR DELETE ON charges
        FOR EACH ROW EXECUTE FUNCTION dashboard_payer_rollup();

      -- Existing rows, once, set-based: the same contributions the trigger adds from now on.
      INSERT INTO dashboard_payer_months (merchant_id, month, payer_key, payments, amount_cents)
      SELECT merchant_id, date_trunc('month', paid_at AT TIME ZONE 'America/Sao_Paulo')::date, payer_key, count(*), sum(gross_paid_cents)
        FROM charges WHERE status = 'PAID' AND payer_key IS NOT NULL AND paid_at IS NOT NULL
       GROUP BY 1, 2, 3;
    `);
  },
};

/**
 * The dashboard's figures, fast at scale.
 *
 * `dashboard_daily` is a rollup per (merchant, day in America/Sao_Paulo, method), maintained by
 * triggers on `charges` and `refunds`, so it changes in the very transaction that settles a
 * charge, expires or cancels it, or settles a refund: it can never disagree with those rows, and
 * no code path can forget it. Each trigger subtracts the old row's contribution and adds the new
 * row's, so any transition (EXPIRED → PAID after expiry, a refund FAILED after PROCESSING) is
 * counted exactly once; updates that touch no counted column skip the rollup entirely.
 *
 * What a row counts (docs/api/dashboard.md):
 * - created_count / failed_count: charges by the day they were CREATED (failed = EXPIRED or CANCELLED now);
 * - paid_count / paid_cents / fee_cents: PAID charges by the day they were PAID; paid_cents is the
 *   gross the payer paid (a boleto's paid amount, else the charge amount), the same amount the
 *   CHARGE_PAID ledger entry takes from the payins account;
 * - refund_count / refunded_cents: SUCCEEDED refunds by the day they settled (method of their charge).
 *
 * Indexes serve the pages (transactions, interactions, health) by (merchant, time) without sorting.
 * Top payers of a period group the period's paid charges by payer: two stored generated columns
 * (the payer's key, the gross paid) let that read one narrow index only (an index-only scan)
 * instead of every charge row's JSON.
 */
import type { Migration } from '../migrator';

export const dashboard: Migration = {
  name: '0022_dashboard',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE TABLE dashboard_daily (
        merchant_id UUID NOT NULL REFERENCES merchants(id),
        day DATE NOT NULL,
        method TEXT NOT NULL,
        created_count BIGINT NOT NULL DEFAULT 0,
        failed_count BIGINT NOT NULL DEFAULT 0,
        paid_count BIGINT NOT NULL DEFAULT 0,
        paid_cents BIGINT NOT NULL DEFAULT 0,
        fee_cents BIGINT NOT NULL DEFAULT 0,
        refund_count BIGINT NOT NULL DEFAULT 0,
        refunded_cents BIGINT NOT NULL DEFAULT 0,
        PRIMARY KEY (merchant_id, day, method)
      );

      CREATE FUNCTION dashboard_bump(m UUID, d DATE, meth TEXT, created BIGINT, failed BIGINT, paid BIGINT, paid_c BIGINT, fee_c BIGINT, refunds BIGINT, refunded_c BIGINT) RETURNS void AS $$
        INSERT INTO dashboard_daily AS t (merchant_id, day, method, created_count, failed_count, paid_count, paid_cents, fee_cents, refund_count, refunded_cents)
        VALUES (m, d, meth, created, failed, paid, paid_c, fee_c, refunds, refunded_c)
        ON CONFLICT (merchant_id, day, method) DO UPDATE SET
          created_count = t.created_count + EXCLUDED.created_count,
          failed_count = t.failed_count + EXCLUDED.failed_count,
          paid_count = t.paid_count + EXCLUDED.paid_count,
          paid_cents = t.paid_cents + EXCLUDED.paid_cents,
          fee_cents = t.fee_cents + EXCLUDED.fee_cents,
          refund_count = t.refund_count + EXCLUDED.refund_count,
          refunded_cents = t.refunded_cents + EXCLUDED.refunded_cents
      $$ LANGUAGE sql;

      CREATE FUNCTION dashboard_charge_apply(c charges, sign INT) RETURNS void AS $$
      BEGIN
        PERFORM dashboard_bump(c.merchant_id, (c.created_at AT TIME ZONE 'America/Sao_Paulo')::date, c.method,
          sign, CASE WHEN c.status IN ('EXPIRED', 'CANCELLED') THEN sign ELSE 0 END, 0, 0, 0, 0, 0);
        IF c.status = 'PAID' THEN
          PERFORM dashboard_bump(c.merchant_id, (COALESCE(c.paid_at, c.created_at) AT TIME ZONE 'America/Sao_Paulo')::date, c.method,
            0, 0, sign, sign * COALESCE(c.boleto_paid_amount_cents, c.amount_cents), sign * COALESCE(c.boleto_paid_fee_cents, c.fee_cents), 0, 0);
        END IF;
      END $$ LANGUAGE plpgsql;

      CREATE FUNCTION dashboard_charge_rollup() RETURNS trigger AS $$
      BEGIN
        IF TG_OP = 'UPDATE' AND (OLD.status, OLD.paid_at, OLD.amount_cents, OLD.fee_cents, OLD.boleto_paid_amount_cents, OLD.boleto_paid_fee_cents, OLD.method, OLD.created_at, OLD.merchant_id)
            IS NOT DISTINCT FROM (NEW.status, NEW.paid_at, NEW.amount_cents, NEW.fee_cents, NEW.boleto_paid_amount_cents, NEW.boleto_paid_fee_cents, NEW.method, NEW.created_at, NEW.merchant_id) THEN
          RETURN NULL;
        END IF;
        IF TG_OP IN ('UPDATE', 'DELETE') THEN PERFORM dashboard_charge_apply(OLD, -1); END IF;
        IF TG_OP IN ('UPDATE', 'INSERT') THEN PERFORM dashboard_charge_apply(NEW, 1); END IF;
        RETURN NULL;
      END $$ LANGUAGE plpgsql;
      CREATE TRIGGER charges_dashboard_rollup AFTER INSERT OR UPDATE OR DELETE ON charges
        FOR EACH ROW EXECUTE FUNCTION dashboard_charge_rollup();

      CREATE FUNCTION dashboard_refund_apply(r refunds, sign INT) RETURNS void AS $$
      BEGIN
        IF r.status = 'SUCCEEDED' THEN
          PERFORM dashboard_bump(r.merchant_id, (COALESCE(r.settled_at, r.created_at) AT TIME ZONE 'America/Sao_Paulo')::date,
            (SELECT method FROM charges WHERE id = r.charge_id), 0, 0, 0, 0, 0, sign, sign * r.amount_cents);
        END IF;
      END $$ LANGUAGE plpgsql;

      CREATE FUNCTION dashboard_refund_rollup() RETURNS trigger AS $$
      BEGIN
        IF TG_OP = 'UPDATE' AND (OLD.status, OLD.settled_at, OLD.amount_cents, OLD.merchant_id) IS NOT DISTINCT FROM (NEW.status, NEW.settled_at, NEW.amount_cents, NEW.merchant_id) THEN
          RETURN NULL;
        END IF;
        IF TG_OP IN ('UPDATE', 'DELETE') THEN PERFORM dashboard_refund_apply(OLD, -1); END IF;
        IF TG_OP IN ('UPDATE', 'INSERT') THEN PERFORM dashboard_refund_apply(NEW, 1); END IF;
        RETURN NULL;
      END $$ LANGUAGE plpgsql;
      CREATE TRIGGER refunds_dashboard_rollup AFTER INSERT OR UPDATE OR DELETE ON refunds
        FOR EACH ROW EXECUTE FUNCTION dashboard_refund_rollup();

      -- Existing rows, once: the same contributions the triggers add from now on.
      SELECT dashboard_charge_apply(c, 1) FROM charges c;
      SELECT dashboard_refund_apply(r, 1) FROM refunds r;

      ALTER TABLE charges
        ADD COLUMN payer_key TEXT GENERATED ALWAYS AS (COALESCE(NULLIF(payer_snapshot->>'document', ''), payer_snapshot->>'name')) STORED,
        ADD COLUMN gross_paid_cents BIGINT GENERATED ALWAYS AS (CASE WHEN status = 'PAID' THEN COALESCE(boleto_paid_amount_cents, amount_cents) END) STORED;
      CREATE INDEX charges_merchant_payers ON charges (merchant_id, paid_at) INCLUDE (payer_key, gross_paid_cents) WHERE status = 'PAID' AND payer_key IS NOT NULL;
      CREATE INDEX charges_merchant_payer_latest ON charges (merchant_id, payer_key, paid_at DESC) WHERE status = 'PAID' AND payer_key IS NOT NULL;

      CREATE INDEX charges_merchant_page ON charges (merchant_id, created_at DESC, id DESC);
      CREATE INDEX charges_merchant_status_page ON charges (merchant_id, status, created_at DESC, id DESC);
      CREATE INDEX charges_merchant_paid ON charges (merchant_id, paid_at DESC) WHERE status = 'PAID';
      CREATE INDEX charges_merchant_expired ON charges (merchant_id, expired_at DESC) WHERE status = 'EXPIRED';
      CREATE INDEX charges_merchant_cancelled ON charges (merchant_id, cancelled_at DESC) WHERE status = 'CANCELLED';
      CREATE INDEX refunds_merchant_created ON refunds (merchant_id, created_at DESC);
      CREATE INDEX webhook_deliveries_merchant ON webhook_deliveries (merchant_id, created_at DESC);
      CREATE INDEX provider_events_received ON provider_events (received_at DESC);
    `);
  },
};

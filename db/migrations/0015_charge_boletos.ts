/**
 * Boleto charges (application API, method BOLETO). The provider registers the boleto; we keep
 * what the PDF and the Charge view need (nosso número, barcode, digitable line, due date, the
 * fine/interest terms it was registered with) and, once paid, what the provider says was paid:
 * a boleto may be paid late or for another amount and is settled for what was paid, so the
 * paid amount, the fee taken on it and the flags live next to the face amount.
 * The hybrid boleto's Pix BR Code stays in `pix`; `provider_charge_id` holds the boleto id too
 * (the callback route finds the charge by it).
 */
import type { Migration } from '../migrator';

export const chargeBoletos: Migration = {
  name: '0015_charge_boletos',
  async up({ context: sequelize }) {
    await sequelize.query(`
      ALTER TABLE charges
        ADD COLUMN boleto_provider_id TEXT,
        ADD COLUMN boleto_bank_code TEXT,
        ADD COLUMN boleto_nosso_numero TEXT,
        ADD COLUMN boleto_barcode TEXT,
        ADD COLUMN boleto_digitable_line TEXT,
        ADD COLUMN boleto_due_date DATE,
        ADD COLUMN boleto_fine_bps INTEGER,
        ADD COLUMN boleto_interest_monthly_bps INTEGER,
        ADD COLUMN boleto_grace_days INTEGER,
        ADD COLUMN boleto_paid_amount_cents BIGINT,
        ADD COLUMN boleto_paid_fee_cents BIGINT,
        ADD COLUMN boleto_paid_via TEXT CHECK (boleto_paid_via IN ('BOLETO','PIX')),
        ADD COLUMN boleto_late BOOLEAN NOT NULL DEFAULT false,
        ADD COLUMN boleto_underpaid BOOLEAN NOT NULL DEFAULT false,
        ADD COLUMN boleto_overpaid BOOLEAN NOT NULL DEFAULT false;
      CREATE UNIQUE INDEX charges_boleto_provider_id ON charges (boleto_provider_id) WHERE boleto_provider_id IS NOT NULL;
    `);
  },
};

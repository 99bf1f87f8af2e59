/** The payment_alerts table (payments a person must look at): its one writer. */
import type { Sequelize } from 'sequelize';
import { endToEndKey } from '../../core/pix/endToEndKey';

export type PaymentAlertKind =
  'NOT_CONFIRMED' | 'AMOUNT_MISMATCH' | 'REFERENCE_MISMATCH' | 'DUPLICATE_PAYMENT' | 'NO_PROVIDER_RECORD';

/** Stores an alert once per charge, kind and claimed payment (replays add nothing). */
export async function recordPaymentAlert(
  sequelize: Sequelize,
  alert: {
    chargeId: string;
    kind: PaymentAlertKind;
    endToEndId: string | null;
    amountCents: number | null;
    details: Record<string, unknown>;
  },
): Promise<void> {
  await sequelize.query(
    `INSERT INTO payment_alerts (charge_id, kind, end_to_end_id, amount_cents, details) VALUES (:chargeId, :kind, :endToEndId, :amountCents, :details)
     ON CONFLICT DO NOTHING`,
    {
      replacements: {
        chargeId: alert.chargeId,
        kind: alert.kind,
        endToEndId: alert.endToEndId === null ? null : endToEndKey(alert.endToEndId),
        amountCents: alert.amountCents,
        details: JSON.stringify(alert.details),
      },
    },
  );
}

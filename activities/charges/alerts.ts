/** What a person must look at: a payment the provider does not back up (payment_alerts), and the activity's log. */
import { Context } from '@temporalio/activity';
import type { Sequelize } from 'sequelize';
import { paymentAlertStore, type PaymentAlertKind } from '../../db/charges';

export async function recordAlert(
  sequelize: Sequelize,
  chargeId: string,
  kind: PaymentAlertKind,
  endToEndId: string | null,
  amountCents: number | null,
  details: Record<string, unknown>,
): Promise<void> {
  await paymentAlertStore.recordPaymentAlert(sequelize, { chargeId, kind, endToEndId, amountCents, details });
}

/** The activity's logger inside Temporal; silent when called directly (tests). */
export function activityLog(level: 'warn' | 'error', message: string, attrs: Record<string, unknown>): void {
  let context: Context;
  try {
    context = Context.current();
  } catch {
    return;
  }
  context.log[level](message, attrs);
}

import type { Sequelize } from 'sequelize';
import { Merchant } from '../identity/merchant';
import { ApiCredential } from '../identity/apiCredential';
import { Charge } from '../charges/charge';
import { ChargeSplit } from '../charges/chargeSplit';
import { IdempotencyRecord } from '../idempotency/idempotencyRecord';
import { OutboxEvent } from '../events/outboxEvent';
import { Withdrawal } from '../withdrawals/withdrawal';
import { WebhookEndpoint } from '../events/webhookEndpoint';
import { PayoutBatch } from '../payouts/payoutBatch';
import { PayoutItem } from '../payouts/payoutItem';
import { User } from '../identity/user';
import { MerchantMember } from '../identity/merchantMember';
import { RefreshToken, UserSession } from '../identity/userSession';
import { ActionToken, AuthChallenge, RecoveryCode, SecondFactor } from '../identity/secondFactor';

import { OutgoingMail } from '../mail/outgoingMail';
import { Refund } from '../refunds/refund';
import { BoletoBatch, BoletoBatchItem } from '../boletos/boletoBatch';
import { Checkout, CheckoutItem } from '../checkouts/checkout';
import { Course, CoursePrice } from '../marketplace/course';
import { CourseLesson, CourseModule } from '../marketplace/courseContent';
import { Certificate, Enrolment, LessonProgress } from '../marketplace/enrolment';

export {
  Merchant,
  ApiCredential,
  Charge,
  ChargeSplit,
  IdempotencyRecord,
  OutboxEvent,
  Withdrawal,
  WebhookEndpoint,
  PayoutBatch,
  PayoutItem,
  OutgoingMail,
};
export { Refund, BoletoBatch, BoletoBatchItem };
export { Checkout, CheckoutItem };
export { Course, CoursePrice, CourseModule, CourseLesson };
export { Enrolment, LessonProgress, Certificate };
export { User, MerchantMember, UserSession, RefreshToken, SecondFactor, RecoveryCode, AuthChallenge, ActionToken };

let initialisedFor: Sequelize | null = null;

/** Sequelize models are static classes: bind them once per Sequelize instance. */
export function initModels(sequelize: Sequelize): void {
  if (initialisedFor === sequelize) return;
  Merchant.initModel(sequelize);
  ApiCredential.initModel(sequelize);
  Charge.initModel(sequelize);
  ChargeSplit.initModel(sequelize);
  IdempotencyRecord.initModel(sequelize);
  OutboxEvent.initModel(sequelize);
  Withdrawal.initModel(sequelize);
  WebhookEndpoint.initModel(sequelize);
  PayoutBatch.initModel(sequelize);
  PayoutItem.initModel(sequelize);
  for (const model of [
    User,
    MerchantMember,
    UserSession,
    RefreshToken,
    SecondFactor,
    RecoveryCode,
    AuthChallenge,
    ActionToken,
  ])
    model.initModel(sequelize);
  OutgoingMail.initModel(sequelize);
  Refund.initModel(sequelize);
  BoletoBatch.initModel(sequelize);
  BoletoBatchItem.initModel(sequelize);
  Checkout.initModel(sequelize);
  CheckoutItem.initModel(sequelize);
  for (const model of [Course, CoursePrice, CourseModule, CourseLesson]) model.initModel(sequelize);
  for (const model of [Enrolment, LessonProgress, Certificate]) model.initModel(sequelize);
  Charge.hasMany(ChargeSplit, { foreignKey: 'chargeId', as: 'splits' });
  initialisedFor = sequelize;
}

import type { Sequelize } from 'sequelize';
import { Merchant } from './merchant';
import { ApiCredential } from './apiCredential';
import { Charge } from './charge';
import { ChargeSplit } from './chargeSplit';
import { IdempotencyRecord } from './idempotencyRecord';
import { OutboxEvent } from './outboxEvent';
import { Withdrawal } from './withdrawal';
import { WebhookEndpoint } from './webhookEndpoint';
import { PayoutBatch } from './payoutBatch';
import { PayoutItem } from './payoutItem';
import { User } from './user';
import { MerchantMember } from './merchantMember';
import { RefreshToken, UserSession } from './userSession';
import { ActionToken, AuthChallenge, RecoveryCode, SecondFactor } from './secondFactor';

import { OutgoingMail } from './outgoingMail';
import { Refund } from './refund';
import { BoletoBatch, BoletoBatchItem } from './boletoBatch';
import { Checkout, CheckoutItem } from './checkout';
import { Course, CoursePrice } from './course';
import { CourseLesson, CourseModule } from './courseContent';
import { Certificate, Enrolment, LessonProgress } from './enrolment';

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

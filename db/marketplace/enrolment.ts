/**
 * Enrolments, lesson progress and certificates (migration 0020). Enrolments are written by the
 * charge lifecycle (activities/checkouts/checkoutEffects.ts: inserted ACTIVE when a checkout is paid,
 * REVOKED on a full refund) and by a subscription's workflow (activities/subscriptions: one per
 * subscription, following its state) with raw SQL in their transactions; the application API reads
 * them and records progress (api/marketplace/enrolments). A certificate is unique per enrolment.
 */
import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';

/**
 * A checkout's enrolment is ACTIVE, then REVOKED on a full refund. A subscription's (migration
 * 0045) follows its state (core/subscriptions/states.ts enrolmentAccess): PENDING until the first
 * cycle is paid, ACTIVE, PAST_DUE during retries, SUSPENDED after a failed cycle, CANCELLED.
 */
export const ENROLMENT_STATUSES = ['PENDING', 'ACTIVE', 'PAST_DUE', 'SUSPENDED', 'CANCELLED', 'REVOKED'] as const;
export type EnrolmentStatus = (typeof ENROLMENT_STATUSES)[number];

/**
 * Whether the student may study now: ACTIVE, or PAST_DUE (a subscription's cycle is being
 * retried: access is kept while the retries may still pay it; core/subscriptions/states.ts).
 */
export function enrolmentHasAccess(status: EnrolmentStatus): boolean {
  return status === 'ACTIVE' || status === 'PAST_DUE';
}

export class Enrolment extends Model<InferAttributes<Enrolment>, InferCreationAttributes<Enrolment>> {
  declare id: string;
  declare merchantId: string;
  declare courseId: string;
  /** The paid checkout it came from; null for a subscription's (exactly one of the two is set). */
  declare checkoutId: string | null;
  declare subscriptionId: CreationOptional<string | null>;
  declare status: CreationOptional<EnrolmentStatus>;
  /** The Pix payer the provider reported (P0 has no customer object); may be unknown. */
  declare studentName: string | null;
  declare studentDocument: string | null;
  declare revokedAt: CreationOptional<Date | null>;
  declare revokedReason: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    Enrolment.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true },
        merchantId: { type: DataTypes.UUID, allowNull: false },
        courseId: { type: DataTypes.UUID, allowNull: false },
        checkoutId: DataTypes.UUID,
        subscriptionId: DataTypes.UUID,
        status: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'ACTIVE' },
        studentName: DataTypes.TEXT,
        studentDocument: DataTypes.TEXT,
        revokedAt: DataTypes.DATE,
        revokedReason: DataTypes.TEXT,
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'enrolments' },
    );
  }
}

/** One completed lesson of an enrolment (primary key: enrolment + lesson, so completing twice is one row). */
export class LessonProgress extends Model<InferAttributes<LessonProgress>, InferCreationAttributes<LessonProgress>> {
  declare enrolmentId: string;
  declare lessonId: string;
  declare completedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    LessonProgress.init(
      {
        enrolmentId: { type: DataTypes.UUID, primaryKey: true },
        lessonId: { type: DataTypes.UUID, primaryKey: true },
        completedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: DataTypes.NOW },
      },
      { sequelize, tableName: 'lesson_progress', timestamps: false },
    );
  }
}

/**
 * The certificate of a completed enrolment. Student name and course title are copied when it is
 * issued: the certificate states what was true then (a later course rename does not change it).
 */
export class Certificate extends Model<InferAttributes<Certificate>, InferCreationAttributes<Certificate>> {
  declare id: string;
  declare enrolmentId: string;
  declare merchantId: string;
  declare courseId: string;
  declare studentName: string | null;
  declare courseTitle: string;
  declare issuedAt: CreationOptional<Date>;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    Certificate.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true },
        enrolmentId: { type: DataTypes.UUID, allowNull: false, unique: true },
        merchantId: { type: DataTypes.UUID, allowNull: false },
        courseId: { type: DataTypes.UUID, allowNull: false },
        studentName: DataTypes.TEXT,
        courseTitle: { type: DataTypes.TEXT, allowNull: false },
        issuedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: DataTypes.NOW },
        createdAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'certificates', updatedAt: false },
    );
  }
}

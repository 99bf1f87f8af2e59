/** A course a merchant sells, and its prices (migration 0020). Only PUBLISHED courses sell. */
import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';
import type { SubscriptionInterval } from '../../core/subscriptions/calendar';
import type { RetryPolicy } from '../../core/subscriptions/retries';
import { centsColumn } from '../models/centsColumn';

export const COURSE_STATUSES = ['DRAFT', 'PUBLISHED', 'ARCHIVED'] as const;
export type CourseStatus = (typeof COURSE_STATUSES)[number];
export const COURSE_ACCESS_TYPES = ['LIFETIME', 'SUBSCRIPTION'] as const;
export type CourseAccessType = (typeof COURSE_ACCESS_TYPES)[number];
export const COURSE_PRICE_TYPES = ['ONE_TIME', 'SUBSCRIPTION', 'MULTIPLE_PAYMENTS'] as const;
export type CoursePriceType = (typeof COURSE_PRICE_TYPES)[number];

export class Course extends Model<InferAttributes<Course>, InferCreationAttributes<Course>> {
  declare id: string;
  declare merchantId: string;
  declare title: string;
  declare description: string;
  declare thumbnailUrl: string | null;
  declare status: CreationOptional<CourseStatus>;
  declare accessType: CourseAccessType;
  declare publishedAt: CreationOptional<Date | null>;
  declare archivedAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    Course.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true },
        merchantId: { type: DataTypes.UUID, allowNull: false },
        title: { type: DataTypes.TEXT, allowNull: false },
        description: { type: DataTypes.TEXT, allowNull: false },
        thumbnailUrl: DataTypes.TEXT,
        status: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'DRAFT' },
        accessType: { type: DataTypes.TEXT, allowNull: false },
        publishedAt: DataTypes.DATE,
        archivedAt: DataTypes.DATE,
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'courses' },
    );
  }
}

/**
 * A price of a course. merchant_id is the course's (denormalised so a checkout can check
 * ownership of a price in one read). A checkout item copies the amount when it is created, so
 * changing a price affects only later checkouts.
 */
export class CoursePrice extends Model<InferAttributes<CoursePrice>, InferCreationAttributes<CoursePrice>> {
  declare id: string;
  declare courseId: string;
  declare merchantId: string;
  declare amountCents: number;
  declare type: CoursePriceType;
  declare active: boolean;
  /** A SUBSCRIPTION price's period and retry policy (migration 0045); null on the other types. */
  declare interval: CreationOptional<SubscriptionInterval | null>;
  declare retryPolicy: CreationOptional<RetryPolicy | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    CoursePrice.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true },
        courseId: { type: DataTypes.UUID, allowNull: false },
        merchantId: { type: DataTypes.UUID, allowNull: false },
        amountCents: centsColumn('amountCents'),
        type: { type: DataTypes.TEXT, allowNull: false },
        active: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
        interval: DataTypes.TEXT,
        retryPolicy: DataTypes.TEXT,
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'course_prices' },
    );
  }
}

/**
 * The courses tables: courses, course_prices, course_modules and course_lessons. Their one
 * writer and the way to read them.
 */
import { QueryTypes, type CreationAttributes, type InferAttributes, type Sequelize, type Transaction } from 'sequelize';
import type { SubscriptionInterval } from '../../core/subscriptions/calendar';
import type { RetryPolicy } from '../../core/subscriptions/retries';
import { Course, CoursePrice, type CourseStatus } from './course';
import { CourseLesson, CourseModule } from './courseContent';

// --- courses --------------------------------------------------------------------------------

export function createCourse(attributes: CreationAttributes<Course>): Promise<Course> {
  return Course.create(attributes);
}

export function findCourse(id: string): Promise<Course | null> {
  return Course.findByPk(id);
}

/** The course row under FOR UPDATE: writes to a course and its children serialise on it. */
export function lockCourse(id: string, transaction: Transaction): Promise<Course | null> {
  return Course.findByPk(id, { transaction, lock: transaction.LOCK.UPDATE });
}

/** A merchant's courses, newest first, one page, with the total. */
export function listCourses(q: { merchantId: string; status?: CourseStatus; limit: number; offset: number }) {
  return Course.findAndCountAll({
    where: { merchantId: q.merchantId, ...(q.status ? { status: q.status } : {}) },
    order: [
      ['createdAt', 'DESC'],
      ['id', 'DESC'],
    ],
    limit: q.limit,
    offset: q.offset,
  });
}

/** Sets `changes` on the row and saves what changed. */
export async function updateCourse(
  course: Course,
  changes: Partial<InferAttributes<Course>>,
  transaction: Transaction,
): Promise<void> {
  course.set(changes);
  await course.save({ transaction });
}

// --- course_prices ---------------------------------------------------------------------------

export function pricesOf(courseId: string): Promise<CoursePrice[]> {
  return CoursePrice.findAll({
    where: { courseId },
    order: [
      ['createdAt', 'ASC'],
      ['id', 'ASC'],
    ],
  });
}

export function createPrice(
  attributes: CreationAttributes<CoursePrice>,
  transaction: Transaction,
): Promise<CoursePrice> {
  return CoursePrice.create(attributes, { transaction });
}

/** The course's price under FOR UPDATE; another course's is not found. */
export function lockPrice(courseId: string, priceId: string, transaction: Transaction): Promise<CoursePrice | null> {
  return CoursePrice.findOne({ where: { id: priceId, courseId }, transaction, lock: transaction.LOCK.UPDATE });
}

/** Sets `changes` on the row and saves what changed. */
export async function updatePrice(
  price: CoursePrice,
  changes: Partial<InferAttributes<CoursePrice>>,
  transaction: Transaction,
): Promise<void> {
  price.set(changes);
  await price.save({ transaction });
}

// --- course_modules and course_lessons ------------------------------------------------------

const ORDER = [
  ['position', 'ASC'],
  ['createdAt', 'ASC'],
  ['id', 'ASC'],
] as [string, string][];

export function modulesOf(courseId: string): Promise<CourseModule[]> {
  return CourseModule.findAll({ where: { courseId }, order: ORDER });
}

export function lessonsOf(courseId: string): Promise<CourseLesson[]> {
  return CourseLesson.findAll({ where: { courseId }, order: ORDER });
}

export function createModule(
  attributes: CreationAttributes<CourseModule>,
  transaction: Transaction,
): Promise<CourseModule> {
  return CourseModule.create(attributes, { transaction });
}

/** The course's module under FOR UPDATE; another course's is not found. */
export function lockModule(courseId: string, moduleId: string, transaction: Transaction): Promise<CourseModule | null> {
  return CourseModule.findOne({ where: { id: moduleId, courseId }, transaction, lock: transaction.LOCK.UPDATE });
}

/** Sets `changes` on the row and saves what changed. */
export async function updateModule(
  module: CourseModule,
  changes: Partial<InferAttributes<CourseModule>>,
  transaction: Transaction,
): Promise<void> {
  module.set(changes);
  await module.save({ transaction });
}

export function createLesson(
  attributes: CreationAttributes<CourseLesson>,
  transaction: Transaction,
): Promise<CourseLesson> {
  return CourseLesson.create(attributes, { transaction });
}

/** The course's lesson under FOR UPDATE; another course's is not found. */
export function lockLesson(courseId: string, lessonId: string, transaction: Transaction): Promise<CourseLesson | null> {
  return CourseLesson.findOne({ where: { id: lessonId, courseId }, transaction, lock: transaction.LOCK.UPDATE });
}

/** The course's lesson (no lock); another course's is not found. */
export function findLesson(
  courseId: string,
  lessonId: string,
  transaction?: Transaction,
): Promise<CourseLesson | null> {
  return CourseLesson.findOne({ where: { id: lessonId, courseId }, transaction });
}

/** Sets `changes` on the row and saves what changed. */
export async function updateLesson(
  lesson: CourseLesson,
  changes: Partial<InferAttributes<CourseLesson>>,
  transaction: Transaction,
): Promise<void> {
  lesson.set(changes);
  await lesson.save({ transaction });
}

// --- checkouts ------------------------------------------------------------------------------

/** A course price as a checkout needs it, with its course's state and title. */
export interface CheckoutPrice {
  id: string;
  merchantId: string;
  courseId: string;
  amountCents: number;
  type: string;
  active: boolean;
  courseStatus: string;
  courseTitle: string;
  /** A SUBSCRIPTION price's period and retry policy (null on the other types). */
  interval: SubscriptionInterval | null;
  retryPolicy: RetryPolicy | null;
}

/** The prices with these ids (any merchant's: the caller checks ownership), by lower-cased id. */
export async function pricesForCheckout(sequelize: Sequelize, priceIds: string[]): Promise<Map<string, CheckoutPrice>> {
  const rows = await sequelize.query<{
    id: string;
    merchant_id: string;
    course_id: string;
    amount_cents: string;
    type: string;
    active: boolean;
    course_status: string;
    course_title: string;
    interval: SubscriptionInterval | null;
    retry_policy: RetryPolicy | null;
  }>(
    `SELECT p.id, p.merchant_id, p.course_id, p.amount_cents, p.type, p.active, c.status AS course_status, c.title AS course_title,
            p.interval, p.retry_policy
     FROM course_prices p JOIN courses c ON c.id = p.course_id
     WHERE p.id IN (:priceIds)`,
    { replacements: { priceIds: [...new Set(priceIds.map((id) => id.toLowerCase()))] }, type: QueryTypes.SELECT },
  );
  return new Map(
    rows.map((r) => [
      r.id,
      {
        id: r.id,
        merchantId: r.merchant_id,
        courseId: r.course_id,
        amountCents: Number(r.amount_cents),
        type: r.type,
        active: r.active,
        courseStatus: r.course_status,
        courseTitle: r.course_title,
        interval: r.interval,
        retryPolicy: r.retry_policy,
      },
    ]),
  );
}

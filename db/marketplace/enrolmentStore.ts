/**
 * The enrolments, lesson_progress and certificates tables: their one writer for the API (the
 * charge lifecycle creates and revokes enrolments in activities/checkouts/checkoutEffects.ts) and
 * the way to read them.
 */
import crypto from 'node:crypto';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { Certificate, Enrolment, type EnrolmentStatus } from './enrolment';

export function findEnrolment(id: string): Promise<Enrolment | null> {
  return Enrolment.findByPk(id);
}

/** The enrolment row under FOR UPDATE: completions of one enrolment serialise on it. */
export function lockEnrolment(id: string, transaction: Transaction): Promise<Enrolment | null> {
  return Enrolment.findByPk(id, { lock: transaction.LOCK.UPDATE, transaction });
}

/** A merchant's enrolments, newest first, one page, with the total. */
export function listEnrolments(q: {
  merchantId: string;
  courseId?: string;
  status?: EnrolmentStatus;
  limit: number;
  offset: number;
}) {
  return Enrolment.findAndCountAll({
    where: {
      merchantId: q.merchantId,
      ...(q.courseId ? { courseId: q.courseId } : {}),
      ...(q.status ? { status: q.status } : {}),
    },
    order: [
      ['createdAt', 'DESC'],
      ['id', 'DESC'],
    ],
    limit: q.limit,
    offset: q.offset,
  });
}

/** Lessons of the enrolment's course it completed, oldest first. */
export async function completedLessons(
  sequelize: Sequelize,
  enrolment: { id: string; courseId: string },
  transaction?: Transaction,
): Promise<{ lessonId: string; completedAt: Date }[]> {
  const lessons = await sequelize.query<{ lesson_id: string; completed_at: Date }>(
    `SELECT p.lesson_id, p.completed_at FROM lesson_progress p JOIN course_lessons l ON l.id = p.lesson_id AND l.course_id = :courseId
     WHERE p.enrolment_id = :enrolmentId ORDER BY p.completed_at, p.lesson_id`,
    {
      replacements: { courseId: enrolment.courseId, enrolmentId: enrolment.id },
      type: QueryTypes.SELECT,
      transaction,
    },
  );
  return lessons.map((l) => ({ lessonId: l.lesson_id, completedAt: new Date(l.completed_at) }));
}

/** How many lessons the enrolment's course has, and how many of them it completed. */
export async function progressCounts(
  sequelize: Sequelize,
  enrolment: { id: string; courseId: string },
  transaction?: Transaction,
): Promise<{ completed: number; total: number }> {
  const [row] = await sequelize.query<{ total: string; completed: string }>(
    `SELECT (SELECT count(*) FROM course_lessons WHERE course_id = :courseId) AS total,
            (SELECT count(*) FROM lesson_progress p JOIN course_lessons l ON l.id = p.lesson_id AND l.course_id = :courseId WHERE p.enrolment_id = :enrolmentId) AS completed`,
    {
      replacements: { courseId: enrolment.courseId, enrolmentId: enrolment.id },
      type: QueryTypes.SELECT,
      transaction,
    },
  );
  return { completed: Number(row.completed), total: Number(row.total) };
}

/** Marks the lesson completed for the enrolment (once; a repeat changes nothing). */
export async function recordLessonCompleted(
  sequelize: Sequelize,
  enrolmentId: string,
  lessonId: string,
  transaction: Transaction,
): Promise<void> {
  await sequelize.query(
    `INSERT INTO lesson_progress (enrolment_id, lesson_id) VALUES (:enrolmentId, :lessonId) ON CONFLICT DO NOTHING`,
    {
      replacements: { enrolmentId, lessonId },
      transaction,
    },
  );
}

/**
 * Issues the enrolment's certificate unless it has one (certificates.enrolment_id is unique), with
 * the student's name and the course title as they are now. Call with the enrolment row locked.
 */
export async function issueCertificate(sequelize: Sequelize, enrolmentId: string, transaction: Transaction) {
  await sequelize.query(
    `INSERT INTO certificates (id, enrolment_id, merchant_id, course_id, student_name, course_title)
     SELECT :id, e.id, e.merchant_id, e.course_id, e.student_name, c.title FROM enrolments e JOIN courses c ON c.id = e.course_id WHERE e.id = :enrolmentId
     ON CONFLICT (enrolment_id) DO NOTHING`,
    { replacements: { id: crypto.randomUUID(), enrolmentId }, transaction },
  );
}

export function certificateOfEnrolment(enrolmentId: string): Promise<Certificate | null> {
  return Certificate.findOne({ where: { enrolmentId } });
}

export function findCertificate(id: string): Promise<Certificate | null> {
  return Certificate.findByPk(id);
}

/** ACTIVE enrolments for the paid checkout, one per course of its items (once: ON CONFLICT). */
export async function enrolForCheckout(
  sequelize: Sequelize,
  args: { merchantId: string; checkoutId: string; studentName: string | null; studentDocument: string | null },
  transaction: Transaction,
): Promise<void> {
  await sequelize.query(
    `INSERT INTO enrolments (id, merchant_id, course_id, checkout_id, status, student_name, student_document)
     SELECT gen_random_uuid(), :merchantId, course_id, :checkoutId, 'ACTIVE', :studentName, :studentDocument
     FROM (SELECT DISTINCT course_id FROM checkout_items WHERE checkout_id = :checkoutId AND course_id IS NOT NULL) AS courses
     ON CONFLICT (checkout_id, course_id) DO NOTHING`,
    { replacements: args, transaction },
  );
}

/** The refunded checkout's ACTIVE enrolments become REVOKED. */
export async function revokeForCheckout(sequelize: Sequelize, checkoutId: string, transaction: Transaction) {
  await sequelize.query(
    `UPDATE enrolments SET status = 'REVOKED', revoked_at = now(), revoked_reason = 'REFUNDED', updated_at = now()
     WHERE checkout_id = :checkoutId AND status = 'ACTIVE'`,
    { replacements: { checkoutId }, transaction },
  );
}

/**
 * The subscription's enrolment in the course (one per subscription: enrolments.subscription_id is
 * unique), PENDING until its first cycle is paid; a repeat changes nothing.
 */
export async function enrolForSubscription(
  sequelize: Sequelize,
  args: { merchantId: string; courseId: string; subscriptionId: string; studentName: string; studentDocument: string },
  transaction: Transaction,
): Promise<void> {
  await sequelize.query(
    `INSERT INTO enrolments (id, merchant_id, course_id, subscription_id, status, student_name, student_document)
     VALUES (gen_random_uuid(), :merchantId, :courseId, :subscriptionId, 'PENDING', :studentName, :studentDocument)
     ON CONFLICT (subscription_id) DO NOTHING`,
    { replacements: args, transaction },
  );
}

/** The subscription's enrolment follows its state (core/subscriptions/states.ts enrolmentAccess). */
export async function setSubscriptionEnrolmentStatus(
  sequelize: Sequelize,
  subscriptionId: string,
  status: Exclude<EnrolmentStatus, 'REVOKED'>,
  transaction: Transaction,
): Promise<void> {
  await sequelize.query(
    `UPDATE enrolments SET status = :status, updated_at = now()
     WHERE subscription_id = :subscriptionId AND status <> :status`,
    { replacements: { subscriptionId, status }, transaction },
  );
}

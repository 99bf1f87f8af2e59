/**
 * Enrolments made the real way: a published course with a price and lessons through
 * the /courses routes, a P0 checkout through /v1/checkouts, paid in the sandbox, so the enrolment
 * is the one the charge lifecycle's hook inserted. Fails loudly when a step does not answer as expected.
 */
import crypto from 'node:crypto';
import type { Sequelize } from 'sequelize';
import { waitFor } from './env';
import type { StackClient } from './integrationStack';
import { chargeOf, checkoutBody, postCheckout, type Producer } from './checkouts';
import { createCourseContent, createPublishedCourseWithPrice, type CourseAnswer } from './courses';

export interface PaidEnrolment {
  course: CourseAnswer;
  lessonIds: string[];
  checkoutId: string;
  chargeId: string;
  enrolmentId: string;
}

/** The student the sandbox reports as payer (a check-digit-valid CPF). */
export const STUDENT = { name: 'Maria Aluna', document: '52998224725' };

export async function enrolmentIdOf(
  sequelize: Sequelize,
  checkoutId: string,
  courseId: string,
): Promise<string | undefined> {
  const [rows] = (await sequelize.query(
    `SELECT id FROM enrolments WHERE checkout_id = :checkoutId AND course_id = :courseId`,
    {
      replacements: { checkoutId: checkoutId.replace(/^bill_/, ''), courseId },
    },
  )) as [Array<{ id: string }>, unknown];
  return rows[0]?.id;
}

/** A course with `lessons` lessons (in one module), sold by a P0 checkout and paid: its ACTIVE enrolment. */
export async function paidEnrolment(
  stack: StackClient,
  p: Producer,
  o: { lessons?: number; title?: string; amountCents?: number; student?: typeof STUDENT } = {},
): Promise<PaidEnrolment> {
  const { course, price } = await createPublishedCourseWithPrice(
    p.client,
    p.merchantId,
    { amountCents: o.amountCents ?? 2_500 },
    { title: o.title ?? `Curso ${crypto.randomUUID().slice(0, 6)}` },
  );
  const count = o.lessons ?? 3;
  const content =
    count > 0
      ? await createCourseContent(p.client, course.id, [
          { title: 'Módulo 1', lessons: Array.from({ length: count }, (_, i) => ({ title: `Aula ${i + 1}` })) },
        ])
      : [];
  const created = await postCheckout(stack, p.creds, checkoutBody([{ id: price.id, quantity: 1 }]));
  if (created.status !== 201) throw new Error(`POST /v1/checkouts: ${created.status} ${JSON.stringify(created.body)}`);
  const checkoutId = created.body.data.id as string;
  const chargeId = await chargeOf(stack.sequelize, checkoutId);
  const paid = await stack.pay(chargeId, o.student ?? STUDENT);
  if (paid.status !== 200) throw new Error(`sandbox pay: ${paid.status} ${JSON.stringify(paid.body)}`);
  const enrolmentId = await waitFor(
    () => enrolmentIdOf(stack.sequelize, checkoutId, course.id),
    `enrolment of ${checkoutId}`,
    90_000,
  );
  return { course, lessonIds: content.flatMap((m) => m.lessonIds), checkoutId, chargeId, enrolmentId };
}

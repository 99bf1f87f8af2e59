/**
 * Courses, prices, modules and lessons made through the /courses routes, as a merchant does.
 * Each helper fails loudly with the answer when a route does not answer as expected.
 */
import type { AppAnswer, AppClient } from './appClient';

export interface CourseAnswer {
  id: string;
  merchantId: string;
  title: string;
  description: string;
  thumbnailUrl: string | null;
  status: 'DRAFT' | 'PUBLISHED' | 'ARCHIVED';
  accessType: 'LIFETIME' | 'SUBSCRIPTION';
  createdAt: string;
  updatedAt: string;
}

export interface PriceAnswer {
  id: string;
  courseId: string;
  amountCents: number;
  type: 'ONE_TIME' | 'SUBSCRIPTION' | 'MULTIPLE_PAYMENTS';
  active: boolean;
  interval: 'WEEKLY' | 'MONTHLY' | 'QUARTERLY' | 'SEMIANNUAL' | 'ANNUAL' | null;
  retryPolicy: 'NAO_PERMITE' | 'PERMITE_3R_7D' | null;
}

function expectStatus(what: string, res: AppAnswer, status: number): void {
  if (res.status !== status)
    throw new Error(`${what}: expected ${status}, got ${res.status} ${JSON.stringify(res.body)}`);
}

let counter = 0;

/** A DRAFT course of `merchantId` (the client must be owner, admin or finance of it). */
export async function createCourse(
  app: AppClient,
  merchantId: string,
  fields: Partial<Pick<CourseAnswer, 'title' | 'description' | 'thumbnailUrl' | 'accessType'>> = {},
): Promise<CourseAnswer> {
  counter++;
  const res = await app.call('POST', '/courses', {
    body: {
      merchantId,
      title: `Curso de teste ${counter}`,
      description: 'Aprenda fazendo.',
      accessType: 'LIFETIME',
      ...fields,
    },
  });
  expectStatus('POST /courses', res, 201);
  return res.body as CourseAnswer;
}

export async function publishCourse(app: AppClient, courseId: string): Promise<CourseAnswer> {
  const res = await app.call('POST', `/courses/${courseId}/publish`);
  expectStatus('publish', res, 200);
  return res.body as CourseAnswer;
}

export async function archiveCourse(app: AppClient, courseId: string): Promise<CourseAnswer> {
  const res = await app.call('POST', `/courses/${courseId}/archive`);
  expectStatus('archive', res, 200);
  return res.body as CourseAnswer;
}

export async function createPrice(
  app: AppClient,
  courseId: string,
  price: { amountCents: number; type?: PriceAnswer['type']; active?: boolean },
): Promise<PriceAnswer> {
  const res = await app.call('POST', `/courses/${courseId}/prices`, { body: { type: 'ONE_TIME', ...price } });
  expectStatus('POST /courses/{id}/prices', res, 201);
  return res.body as PriceAnswer;
}

export async function setPriceActive(
  app: AppClient,
  courseId: string,
  priceId: string,
  active: boolean,
): Promise<PriceAnswer> {
  const res = await app.call('PATCH', `/courses/${courseId}/prices/${priceId}`, { body: { active } });
  expectStatus('PATCH price', res, 200);
  return res.body as PriceAnswer;
}

/** A PUBLISHED course with one price (ONE_TIME unless told): what a P0 checkout item sells. */
export async function createPublishedCourseWithPrice(
  app: AppClient,
  merchantId: string,
  price: { amountCents: number; type?: PriceAnswer['type']; active?: boolean },
  fields: Parameters<typeof createCourse>[2] = {},
): Promise<{ course: CourseAnswer; price: PriceAnswer }> {
  const course = await createCourse(app, merchantId, fields);
  const created = await createPrice(app, course.id, price);
  return { course: await publishCourse(app, course.id), price: created };
}

/** Modules with lessons, in the given order: `[{title, lessons: [{title, contentUrl?}]}]`; answers the ids. */
export async function createCourseContent(
  app: AppClient,
  courseId: string,
  modules: { title: string; lessons: { title: string; contentUrl?: string | null }[] }[],
): Promise<{ moduleId: string; lessonIds: string[] }[]> {
  const out: { moduleId: string; lessonIds: string[] }[] = [];
  for (const [order, m] of modules.entries()) {
    const module = await app.call('POST', `/courses/${courseId}/modules`, { body: { title: m.title, order } });
    expectStatus('POST module', module, 201);
    const lessonIds: string[] = [];
    for (const [lessonOrder, l] of m.lessons.entries()) {
      const lesson = await app.call('POST', `/courses/${courseId}/modules/${module.body.id}/lessons`, {
        body: { title: l.title, order: lessonOrder, contentUrl: l.contentUrl ?? null },
      });
      expectStatus('POST lesson', lesson, 201);
      lessonIds.push(lesson.body.id);
    }
    out.push({ moduleId: module.body.id, lessonIds });
  }
  return out;
}

/** Courses, prices, modules and lessons as the application API shows them. Pure. */
import type { Course, CourseLesson, CourseModule, CoursePrice } from '../../../db/marketplace';

export function presentCourse(c: Course) {
  return {
    id: c.id,
    merchantId: c.merchantId,
    title: c.title,
    description: c.description,
    thumbnailUrl: c.thumbnailUrl,
    status: c.status,
    accessType: c.accessType,
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}

export function presentPrice(p: CoursePrice) {
  return {
    id: p.id,
    courseId: p.courseId,
    amountCents: p.amountCents,
    type: p.type,
    active: p.active,
    interval: p.interval ?? null,
    retryPolicy: p.retryPolicy ?? null,
  };
}

export function presentModule(m: CourseModule) {
  return {
    id: m.id,
    courseId: m.courseId,
    title: m.title,
    order: m.position,
    createdAt: m.createdAt.toISOString(),
    updatedAt: m.updatedAt.toISOString(),
  };
}

export function presentLesson(l: CourseLesson) {
  return {
    id: l.id,
    courseId: l.courseId,
    moduleId: l.moduleId,
    title: l.title,
    order: l.position,
    contentUrl: l.contentUrl,
    createdAt: l.createdAt.toISOString(),
    updatedAt: l.updatedAt.toISOString(),
  };
}

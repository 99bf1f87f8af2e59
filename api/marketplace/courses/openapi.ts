/** OpenAPI for /courses (router.ts), from the schemas that validate it (schema.ts). */
import { z } from 'zod';
import { bearerPaths, errorResponses, jsonResponse, Pagination, registry } from '../../openapi/registry';
import type { ErrorCode } from '../../openapi/errorCodes';
import {
  courseView,
  createCourseBody,
  createLessonBody,
  createModuleBody,
  createPriceBody,
  lessonView,
  listCoursesQuery,
  moduleView,
  moduleWithLessonsView,
  priceView,
  updateCourseBody,
  updateLessonBody,
  updateModuleBody,
  updatePriceBody,
} from './schema';

// Derived copies (.describe): the routers import schema.ts before the registry extends zod.
const Course = registry.register('Course', courseView.describe('A course of the marketplace (the spec’s Course).'));
const CourseList = registry.register(
  'CourseList',
  z.object({ data: z.array(Course), pagination: Pagination }).describe('Newest first.'),
);
const CoursePrice = registry.register(
  'CoursePrice',
  priceView.describe('A price of a course. A P0 checkout item is `{id: <price id>, quantity}`.'),
);
const CourseModule = registry.register('CourseModule', moduleView.describe('A module of a course.'));
const CourseLesson = registry.register('CourseLesson', lessonView.describe('A lesson of a module.'));
const CourseModuleWithLessons = registry.register(
  'CourseModuleWithLessons',
  moduleWithLessonsView.describe('A module with its lessons.'),
);

const body = (schema: z.ZodType, name: string, description: string) => ({
  required: true,
  content: { 'application/json': { schema: registry.register(name, schema.describe(description)) } },
});
const courseId = z.uuid().openapi({ description: 'Course id.' });
const idParam = z.object({ id: courseId });
const bearerErrors = ['AUTHENTICATION_REQUIRED', 'INVALID_ACCESS_TOKEN', 'RATE_LIMITED'] as const;
const readErrors = (...more: ErrorCode[]) =>
  errorResponses('VALIDATION_ERROR', 'COURSE_NOT_FOUND', ...more, ...bearerErrors);
const writeErrors = (...more: ErrorCode[]) => readErrors('INSUFFICIENT_ROLE', ...more);

const ROLES =
  'Any member of the course’s merchant reads; owner, admin and finance write (a viewer → 403 INSUFFICIENT_ROLE). Another merchant’s course → 404 COURSE_NOT_FOUND.';
const READ_ONLY = 'An ARCHIVED course is read-only → 409 COURSE_ARCHIVED.';

const path = bearerPaths('Courses');

path('post', '/courses', 'createCourse', 'Create a course (DRAFT)', {
  description:
    'For a merchant you belong to with role owner, admin or finance (a merchant you do not belong to → 404 MERCHANT_NOT_FOUND; a viewer → 403). The course starts DRAFT: publish it to sell it.',
  request: { body: body(createCourseBody, 'CreateCourseRequest', 'A new course.') },
  responses: {
    201: jsonResponse(
      'The course, DRAFT.',
      Course,
      {},
      {
        getCourse: { id: '$response.body#/id' },
        listCoursePrices: { id: '$response.body#/id' },
        listCourseModules: { id: '$response.body#/id' },
      },
    ),
    ...errorResponses('VALIDATION_ERROR', 'MERCHANT_NOT_FOUND', 'INSUFFICIENT_ROLE', ...bearerErrors),
  },
});

path('get', '/courses', 'listCourses', 'List a merchant’s courses', {
  description:
    'Courses of `merchantId` (default: the merchant you own, or first belong to), any member role, newest first, filtered by `status`, with `limit` and `offset` paging. A merchant you do not belong to → 404 MERCHANT_NOT_FOUND.',
  request: { query: listCoursesQuery },
  responses: {
    200: jsonResponse('A page of courses.', CourseList),
    ...errorResponses('VALIDATION_ERROR', 'MERCHANT_NOT_FOUND', ...bearerErrors),
  },
});

path('get', '/courses/{id}', 'getCourse', 'Read a course', {
  description: ROLES,
  request: { params: idParam },
  responses: { 200: jsonResponse('The course.', Course), ...readErrors() },
});

path('patch', '/courses/{id}', 'updateCourse', 'Change a course', {
  description: `Only the fields sent change. ${READ_ONLY} ${ROLES}`,
  request: { params: idParam, body: body(updateCourseBody, 'UpdateCourseRequest', 'The fields to change.') },
  responses: { 200: jsonResponse('The course.', Course), ...writeErrors('COURSE_ARCHIVED') },
});

path('post', '/courses/{id}/publish', 'publishCourse', 'Publish a course: DRAFT → PUBLISHED', {
  description:
    'Only PUBLISHED courses sell. Publishing a PUBLISHED course answers it unchanged; an ARCHIVED course cannot be published again → 409 INVALID_COURSE_TRANSITION.',
  request: { params: idParam },
  responses: { 200: jsonResponse('The course, PUBLISHED.', Course), ...writeErrors('INVALID_COURSE_TRANSITION') },
});

path('post', '/courses/{id}/archive', 'archiveCourse', 'Archive a course: DRAFT | PUBLISHED → ARCHIVED', {
  description: `An ARCHIVED course no longer sells (new checkouts refuse its prices; existing enrolments keep their access) and is read-only from then on. Archiving an ARCHIVED course answers it unchanged. ${ROLES}`,
  request: { params: idParam },
  responses: { 200: jsonResponse('The course, ARCHIVED.', Course), ...writeErrors() },
});

path('post', '/courses/{id}/prices', 'createCoursePrice', 'Add a price to a course', {
  description: `Any type is stored; P0 checkouts sell ONE_TIME prices only. ${READ_ONLY} ${ROLES}`,
  request: { params: idParam, body: body(createPriceBody, 'CreateCoursePriceRequest', 'A new price.') },
  responses: { 201: jsonResponse('The price.', CoursePrice), ...writeErrors('COURSE_ARCHIVED') },
});

path('get', '/courses/{id}/prices', 'listCoursePrices', 'A course’s prices', {
  description: `Active and inactive, oldest first. ${ROLES}`,
  request: { params: idParam },
  responses: { 200: jsonResponse('The prices.', z.object({ data: z.array(CoursePrice) })), ...readErrors() },
});

path('patch', '/courses/{id}/prices/{priceId}', 'updateCoursePrice', 'Change a price (active, amount)', {
  description: `A new amount applies to checkouts created afterwards: a checkout keeps the unit amount it was created with. An inactive price cannot be sold (422 COURSE_PRICE_INACTIVE at checkout). ${READ_ONLY} ${ROLES}`,
  request: {
    params: z.object({ id: courseId, priceId: z.uuid().openapi({ description: 'Price id (of this course).' }) }),
    body: body(updatePriceBody, 'UpdateCoursePriceRequest', 'The fields to change.'),
  },
  responses: { 200: jsonResponse('The price.', CoursePrice), ...writeErrors('PRICE_NOT_FOUND', 'COURSE_ARCHIVED') },
});

path('post', '/courses/{id}/modules', 'createCourseModule', 'Add a module to a course', {
  description: `${READ_ONLY} ${ROLES}`,
  request: { params: idParam, body: body(createModuleBody, 'CreateCourseModuleRequest', 'A new module.') },
  responses: { 201: jsonResponse('The module.', CourseModule), ...writeErrors('COURSE_ARCHIVED') },
});

path('get', '/courses/{id}/modules', 'listCourseModules', 'A course’s modules and lessons, in order', {
  description: ROLES,
  request: { params: idParam },
  responses: {
    200: jsonResponse(
      'The modules, by order, each with its lessons by order.',
      z.object({ data: z.array(CourseModuleWithLessons) }),
    ),
    ...readErrors(),
  },
});

const moduleParams = z.object({
  id: courseId,
  moduleId: z.uuid().openapi({ description: 'Module id (of this course).' }),
});

path('patch', '/courses/{id}/modules/{moduleId}', 'updateCourseModule', 'Change a module', {
  description: `${READ_ONLY} ${ROLES}`,
  request: { params: moduleParams, body: body(updateModuleBody, 'UpdateCourseModuleRequest', 'The fields to change.') },
  responses: { 200: jsonResponse('The module.', CourseModule), ...writeErrors('MODULE_NOT_FOUND', 'COURSE_ARCHIVED') },
});

path('post', '/courses/{id}/modules/{moduleId}/lessons', 'createCourseLesson', 'Add a lesson to a module', {
  description: `${READ_ONLY} ${ROLES}`,
  request: { params: moduleParams, body: body(createLessonBody, 'CreateCourseLessonRequest', 'A new lesson.') },
  responses: { 201: jsonResponse('The lesson.', CourseLesson), ...writeErrors('MODULE_NOT_FOUND', 'COURSE_ARCHIVED') },
});

path('patch', '/courses/{id}/lessons/{lessonId}', 'updateCourseLesson', 'Change a lesson', {
  description: `${READ_ONLY} ${ROLES}`,
  request: {
    params: z.object({ id: courseId, lessonId: z.uuid().openapi({ description: 'Lesson id (of this course).' }) }),
    body: body(updateLessonBody, 'UpdateCourseLessonRequest', 'The fields to change.'),
  },
  responses: { 200: jsonResponse('The lesson.', CourseLesson), ...writeErrors('LESSON_NOT_FOUND', 'COURSE_ARCHIVED') },
});

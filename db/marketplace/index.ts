/**
 * The marketplace domain's tables: courses (courses, course_prices, course_modules,
 * course_lessons) and enrolments (enrolments, lesson_progress, certificates), each group written
 * by one store here. Models are exported as types only.
 */
export * as courseStore from './courseStore';
export * as enrolmentStore from './enrolmentStore';
export {
  COURSE_ACCESS_TYPES,
  COURSE_PRICE_TYPES,
  COURSE_STATUSES,
  type Course,
  type CoursePrice,
  type CourseStatus,
} from './course';
export type { CourseLesson, CourseModule } from './courseContent';
export {
  ENROLMENT_STATUSES,
  enrolmentHasAccess,
  type Certificate,
  type Enrolment,
  type EnrolmentStatus,
} from './enrolment';
